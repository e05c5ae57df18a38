// swift-format-ignore-file: NeverForceUnwrap

// (The README shows a literal base URL as users write one.)
// Docs: begin readme-endpoint
import Foundation
import NALCore

enum Weather: RemoteService {
    case forecast(city: String, days: Int)
    case alerts(region: String)

    var baseURL: URL { URL(string: "https://api.weather.example/v1")! }

    var path: String {
        switch self {
        case .forecast(let city, _): "forecast/\(pathSegment: city)"
        case .alerts(let region): "alerts/\(pathSegment: region)"
        }
    }

    var method: HTTPMethod { .get }

    var requestType: RequestType {
        switch self {
        case .forecast(_, let days):
            .parameters(["days": .int(days)], encoding: URLEncoding.default)
        case .alerts: .plain
        }
    }
}

struct Forecast: Codable, Sendable, Equatable {
    var city: String
    var temperatures: [Double]
}
// Docs: end readme-endpoint
