public import Foundation

/// What a request carries. Every case that Mockingbird and Moya offer is here, with `Sendable` payloads.
public enum RequestType: Sendable {
    /// No parameters and no body.
    case plain
    /// A raw body, sent as is.
    case data(Data)
    /// An `Encodable` body, encoded with a default `JSONEncoder` and sent as `application/json`.
    case jsonEncodable(any Encodable & Sendable)
    /// An `Encodable` body, encoded with the given `JSONEncoder` and sent as `application/json`.
    case customJSONEncodable(any Encodable & Sendable, encoder: JSONEncoder)
    /// Parameters applied by a `ParameterEncoding`, for example `URLEncoding.default` or `JSONEncoding.default`.
    case parameters(Parameters, encoding: any ParameterEncoding)
    /// Parameters as a list of pairs, applied by a `URLEncoding`: the same output as `.parameters` for the same
    /// pairs, without building a dictionary on every call (see `ParameterList`).
    case parameterList(ParameterList, encoding: URLEncoding = .default)
    /// A raw body plus parameters in the URL query.
    case compositeData(Data, urlParameters: Parameters)
    /// Body parameters applied by `bodyEncoding` plus parameters in the URL query.
    case compositeParameters(bodyParameters: Parameters, bodyEncoding: any ParameterEncoding, urlParameters: Parameters)
    /// An `Encodable` value turned into URL query items.
    case encodableQuery(any Encodable & Sendable, encoder: URLEncodedFormEncoder = URLEncodedFormEncoder())
    /// An `Encodable` value sent as an `application/x-www-form-urlencoded` body.
    case formEncodable(any Encodable & Sendable, encoder: URLEncodedFormEncoder = URLEncodedFormEncoder())
    /// Upload these bytes as the body.
    case uploadData(Data)
    /// Upload the contents of a file as the body.
    case uploadFile(URL)
    /// Upload a `multipart/form-data` body made of these parts.
    case uploadMultipart([MultipartFormBodyPart])
    /// Upload a `multipart/form-data` body plus parameters in the URL query.
    case uploadCompositeMultipart([MultipartFormBodyPart], urlParameters: Parameters)
    /// Download the response body to a file.
    case download(DownloadDestination)
    /// Download the response body to a file, sending parameters applied by `encoding`.
    case downloadParameters(Parameters, encoding: any ParameterEncoding, destination: DownloadDestination)
}
