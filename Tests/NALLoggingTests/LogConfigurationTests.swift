import NALLogging
import Testing

@Suite("LogConfiguration and NAL_LOG parsing")
struct LogConfigurationTests {
    @Test("a bare level sets the default")
    func bareLevel() throws {
        let configuration = try LogConfiguration.parse("info")
        #expect(configuration.threshold(subsystem: "any", category: "thing") == .info)
    }

    @Test("most specific selector wins")
    func specificity() throws {
        let configuration = try LogConfiguration.parse("dev.nal:request=debug, dev.nal=error ,*=notice,app:*=off")
        #expect(configuration.threshold(subsystem: "dev.nal", category: "request") == .debug)
        #expect(configuration.threshold(subsystem: "dev.nal", category: "response") == .error)
        #expect(configuration.threshold(subsystem: "other", category: "x") == .notice)
        #expect(configuration.threshold(subsystem: "app", category: "x") == nil)
    }

    @Test("spaces and tabs around '=' are ignored, as around ','")
    func spacesAroundEquals() throws {
        let configuration = try LogConfiguration.parse("dev.nal = debug , app:net =\tinfo")
        #expect(configuration.threshold(subsystem: "dev.nal", category: "request") == .debug)
        #expect(configuration.threshold(subsystem: "app", category: "net") == .info)
    }

    @Test(
        "aliases map to os.Logger's levels",
        arguments: [("trace", LogLevel.debug), ("warning", .error), ("critical", .fault), ("NOTICE", .notice)])
    func aliases(name: String, level: LogLevel) throws {
        #expect(try LogConfiguration.parse(name).defaultLevel == level)
    }

    @Test(
        "invalid specs name the entry and the problem",
        arguments: [
            (
                "loud",
                "invalid entry 'loud': unknown level 'loud'; use debug, info, notice, error, fault, trace, warning, critical or off"
            ),
            ("info,,debug", "invalid entry '': empty entry"),
            ("=debug", "invalid entry '=debug': missing selector before '='"),
            ("a=b=c", "invalid entry 'a=b=c': more than one '='"),
            ("a:b:c=info", "invalid entry 'a:b:c=info': selector must be '*', 'subsystem' or 'subsystem:category'"),
            ("dev.nal:=info", "invalid entry 'dev.nal:=info': empty category after ':'"),
            (
                "*:request=debug",
                "invalid entry '*:request=debug': selector must be '*', 'subsystem' or 'subsystem:category'"
            ),
        ]
    )
    func invalid(spec: String, message: String) {
        do {
            _ = try LogConfiguration.parse(spec)
            Issue.record("'\(spec)' was accepted")
        } catch {
            #expect(error.description == message)
        }
    }
}
