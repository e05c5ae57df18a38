import NALLogging
import Testing

/// Raw values of public enums are API that `scripts/api-check.sh` cannot see (neither the digester nor the symbol
/// graph records them): users write these names and numbers in `NAL_LOG` and in stored settings.
@Suite("Public raw values")
struct RawValueAPITests {
    @Test("LogLevel's numbers and NALCategory's names are as released")
    func rawValues() {
        #expect(LogLevel.allCases.map(\.rawValue) == [1, 2, 3, 4, 5])
        #expect(LogLevel.allCases.map(\.description) == ["debug", "info", "notice", "error", "fault"])
        #expect(
            Logger.NALCategory.allCases.map(\.rawValue) == [
                "request_operation", "request", "response", "middleware", "stubbing",
            ])
    }
}
