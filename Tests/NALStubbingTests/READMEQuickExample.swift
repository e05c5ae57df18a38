import NALCore
import NALStubbing
import Testing

/// The README's call, compiled verbatim (it would reach the network); `forecastFromAStub` runs the same call.
func readmeWeatherCall() async throws -> Forecast {
    // Docs: begin readme-call
    let client = Client<Weather>()
    let forecast = try await client.request(
        .forecast(city: "Zürich", days: 3), as: Forecast.self)
    // Docs: end readme-call
    return forecast
}

@Suite("README quick example")
struct READMEQuickExampleTests {
    // Docs: begin readme-test
    @Test func forecastFromAStub() async throws {
        let stubs = StubTransport<Weather>(.immediate)
        stubs.stub(
            .forecast(city: "Zürich", days: 3),
            with: .json(Forecast(city: "Zürich", temperatures: [3, 5, 4])))

        let client = Client<Weather>(transport: stubs)
        let forecast = try await client.request(
            .forecast(city: "Zürich", days: 3), as: Forecast.self)
        #expect(forecast.temperatures == [3, 5, 4])
        let sent = stubs.requests.first?.url?.absoluteString
        #expect(sent == "https://api.weather.example/v1/forecast/Z%C3%BCrich?days=3")
    }
    // Docs: end readme-test
}
