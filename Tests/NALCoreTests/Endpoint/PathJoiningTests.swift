import Foundation
import NALCore
import Testing

@Suite("Joining paths to base URLs")
struct PathJoiningTests {
    @Test(
        "no doubled or lost slashes, base path and query kept",
        arguments: [
            ("https://api.example.com", "users", "https://api.example.com/users"),
            ("https://api.example.com/", "users", "https://api.example.com/users"),
            ("https://api.example.com", "/users", "https://api.example.com/users"),
            ("https://api.example.com/", "/users", "https://api.example.com/users"),
            ("https://api.example.com/v1", "users", "https://api.example.com/v1/users"),
            ("https://api.example.com/v1/", "/users", "https://api.example.com/v1/users"),
            ("https://api.example.com/v1//", "//users", "https://api.example.com/v1/users"),
            ("https://api.example.com/v1", "users/", "https://api.example.com/v1/users/"),
            ("https://api.example.com/v1", "", "https://api.example.com/v1"),
            ("https://api.example.com/v1/", "", "https://api.example.com/v1/"),
            ("https://api.example.com/v1", "/", "https://api.example.com/v1/"),
            ("https://api.example.com/v1?key=k", "users", "https://api.example.com/v1/users?key=k"),
            ("https://api.example.com:8443/v1", "a/b", "https://api.example.com:8443/v1/a/b"),
            ("http://127.0.0.1:8080", "anything", "http://127.0.0.1:8080/anything"),
            ("https://api.example.com", "users/john doe", "https://api.example.com/users/john%20doe"),
            ("https://api.example.com", "search?q=x", "https://api.example.com/search%3Fq=x"),
            ("https://api.example.com", "café/日", "https://api.example.com/caf%C3%A9/%E6%97%A5"),
            ("https://api.example.com", "a%2Fb", "https://api.example.com/a%2Fb"),
            ("https://api.example.com", "files/a%2F", "https://api.example.com/files/a%2F"),
        ]
    )
    func join(base: String, path: String, expected: String) throws {
        let endpoint = TestEndpoint(baseURL: try #require(URL(string: base)), path: path)
        #expect(try endpoint.urlRequest().url?.absoluteString == expected)
    }

    @Test(
        "one dynamic segment is escaped whole",
        arguments: [
            ("octocat", "octocat"),
            ("a/b", "a%2Fb"),
            ("what?", "what%3F"),
            ("#tag", "%23tag"),
            ("50%", "50%25"),
            ("john doe", "john%20doe"),
            ("x:y@z", "x:y@z"),
            ("..", "%2E%2E"),
            (".", "%2E"),
            ("...", "..."),
            ("é", "%C3%A9"),
            ("", ""),
        ]
    )
    func pathSegment(raw: String, escaped: String) throws {
        #expect("users/\(pathSegment: raw)" == "users/\(escaped)")
        let endpoint = TestEndpoint(path: "users/\(pathSegment: raw)/repos")
        #expect(try endpoint.urlRequest().url?.absoluteString == "https://api.example.com/v1/users/\(escaped)/repos")
    }
}
