struct BenchOptions {
    struct UsageError: Error {
        let message: String
    }

    enum Format: String {
        case table, json
    }

    var quick = false
    var filter: String?
    var format = Format.table
    var check = false
    var writeThresholds = false
    var allowDebug = false
    var help = false
    var thresholdsDirectory = "Benchmarks/Thresholds"

    static func parse(_ arguments: [String]) throws(UsageError) -> BenchOptions {
        var options = BenchOptions()
        var remaining = arguments[...]
        func value(for flag: String) throws(UsageError) -> String {
            guard let next = remaining.popFirst() else { throw UsageError(message: "missing value for '\(flag)'") }
            return next
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--quick": options.quick = true
            case "--check": options.check = true
            case "--write-thresholds": options.writeThresholds = true
            case "--allow-debug": options.allowDebug = true
            case "-h", "--help": options.help = true
            case "--filter": options.filter = try value(for: argument)
            case "--thresholds": options.thresholdsDirectory = try value(for: argument)
            case "--format":
                let text = try value(for: argument)
                guard let format = Format(rawValue: text) else {
                    throw UsageError(message: "unknown format '\(text)'; use 'table' or 'json'")
                }
                options.format = format
            default:
                throw UsageError(message: "unknown option '\(argument)'")
            }
        }
        return options
    }
}
