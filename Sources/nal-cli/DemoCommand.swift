import Foundation
import NALCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `nal-cli demo`: prepares every endpoint of `SampleAPI` and prints each request and its cURL form.
enum DemoCommand {
    static func run(output: inout some TextOutputStream) throws(NALError) {
        print("NAL demo: request preparation for a sample API. Nothing is sent; secrets are redacted.", to: &output)
        for endpoint in SampleAPI.allCases {
            let request = try endpoint.urlRequest()
            print("", to: &output)
            print("SampleAPI\(endpoint.caseDescription)", to: &output)
            print("  \(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "")", to: &output)
            print(request.curlCommand().split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"), to: &output)
        }
    }
}
