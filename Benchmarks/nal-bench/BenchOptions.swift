struct BenchOptions {
    struct UsageError: Error {
        let message: String
    }

    enum Format: String {
        case table, json, markdown
    }

    var quick = false
    var filter: String?
    var format = Format.table
    var check = false
    var writeThresholds = false
    var allowDebug = false
    var help = false
    var thresholdsDirectory = "Benchmarks/Thresholds"
    /// `--save-baseline NAME`: where this run's results are saved (see `Baseline.path(for:)`).
    var saveBaseline: String?
    /// `--compare NAME`: the baseline this run is compared with.
    var compare: String?
    var metric = BaselineComparison.Metric.all
    /// `--list`: print every scenario with what it measures, and run nothing.
    var list = false
    /// `--strict`: with `--compare`, a baseline out of date (new, removed, improved or uncountable scenarios) fails
    /// the run too, as a checked-in baseline must in CI.
    var strict = false

    /// Whether usage errors exit 2 rather than 64: the contract of the baseline options, which CI scripts test
    /// (0 nothing regressed, 1 a regression, 2 a usage error).
    static func usesBaselineExitCodes(_ arguments: [String]) -> Bool {
        arguments.contains { argument in
            ["--compare", "--save-baseline"].contains { argument == $0 || argument.hasPrefix($0 + "=") }
        }
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> BenchOptions {
        var options = BenchOptions()
        var remaining = arguments[...]
        var metricGiven = false
        func value(for flag: String) throws(UsageError) -> String {
            guard let next = remaining.popFirst() else { throw UsageError(message: "missing value for '\(flag)'") }
            return next
        }
        while var argument = remaining.popFirst() {
            // `--name=value` is `--name value`, as in nal-cli.
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                remaining.insert(String(argument[argument.index(after: equals)...]), at: remaining.startIndex)
                argument = String(argument[..<equals])
            }
            switch argument {
            case "--quick": options.quick = true
            case "--check": options.check = true
            case "--write-thresholds": options.writeThresholds = true
            case "--allow-debug": options.allowDebug = true
            case "-h", "--help": options.help = true
            case "--filter": options.filter = try value(for: argument)
            case "--thresholds": options.thresholdsDirectory = try value(for: argument)
            case "--save-baseline": options.saveBaseline = try value(for: argument)
            case "--compare": options.compare = try value(for: argument)
            case "--list": options.list = true
            case "--strict": options.strict = true
            case "--metric":
                metricGiven = true
                let text = try value(for: argument)
                guard let metric = BaselineComparison.Metric(rawValue: text) else {
                    throw UsageError(message: "unknown metric '\(text)'; use 'all', 'allocations' or 'time'")
                }
                options.metric = metric
            case "--format":
                let text = try value(for: argument)
                guard let format = Format(rawValue: text) else {
                    throw UsageError(message: "unknown format '\(text)'; use 'table', 'markdown' or 'json'")
                }
                options.format = format
            default:
                throw UsageError(message: "unknown option '\(argument)'")
            }
        }
        if metricGiven || options.strict, options.compare == nil {
            throw UsageError(message: "--metric and --strict apply to --compare")
        }
        if options.saveBaseline?.isEmpty == true || options.compare?.isEmpty == true {
            throw UsageError(message: "a baseline needs a name or a path")
        }
        if let saved = options.saveBaseline, let compared = options.compare,
            Baseline.path(for: saved) == Baseline.path(for: compared)
        {
            throw UsageError(message: "--save-baseline would overwrite the baseline --compare reads; give another name")
        }
        if options.compare != nil, options.writeThresholds {
            throw UsageError(message: "--write-thresholds and --compare do not go together; run them separately")
        }
        if options.list, options.compare != nil || options.saveBaseline != nil || options.check {
            throw UsageError(message: "--list runs nothing; give it alone")
        }
        return options
    }
}
