import Foundation

let usage = """
    USAGE: nal-bench [--quick] [--filter <regex>] [--format table|markdown|json] [--check] [--allow-debug]
           nal-bench [--quick] [--filter <regex>] --save-baseline <name> | --compare <name> [--metric <metric>]
           nal-bench --list                 (every scenario, what it measures and what it is compared with)
           nal-bench memory <url> [--limit <bytes>] [--calls <n>]
           nal-bench scale urlsession|curl <url> [--calls <n>]  (that many GETs at once; peak RSS growth as JSON)
           nal-bench profile <scenario> [N] (runs one scenario alone for 5 s, for perf record; or N operations)
           nal-bench transfer upload|multipart <url> <file> | download <url> <destination>
                              | stub-download <file> <destination> | throughput <url> <destination> <rounds>
           nal-bench loopback <url> [--rounds n] [--sequential n] [--concurrent n] [--in-flight n] [--connections n]
           nal-bench soak <fault-server-url> [--seconds n] [--concurrency n]

    OPTIONS:
      --quick            Short runs for CI (the whole suite in well under 60 s).
      --filter <regex>   Run only scenarios whose name matches (baselines of matched scenarios run too).
      --format <format>  'table' (default), 'markdown' (for a pull request) or 'json'.
      --check            Exit 2 if a scenario allocates more per op than Benchmarks/Thresholds allows, has no
                         threshold, or a threshold names a scenario that does not exist.
      --write-thresholds Write thresholds from this run: measured + max(10 %, 2), rounded up; 0 stays 0.
      --thresholds <dir> Where thresholds live (default Benchmarks/Thresholds).
      --save-baseline <name>
                         Save this run's results (allocations, and time as median, p90 and quartiles over rounds) to
                         .benchmarks/<name>.json, or to <name> when it is a path (has a '/' or ends in .json).
      --compare <name>   Compare this run with a saved baseline: allocations exactly (or within the scenario's
                         stated tolerance), time within the scenario's tolerance (10 % unless stated) and only when
                         the medians differ by more than both runs' spread (IQR). Exit 0: nothing regressed;
                         1: a regression (a table names it; with --check, a scenario past its threshold too); 2: a
                         usage error (a missing, unreadable or unwritable baseline too); 3: a scenario failed.
      --metric <metric>  What --compare looks at: 'all' (default; allocations only when the baseline was saved on
                         another machine), 'allocations' (what CI uses) or 'time' (only on the machine that saved the
                         baseline, and only if it is quiet: on a shared one use scripts/bench-ab.sh).
      --strict           With --compare: also fail (1) when the baseline is out of date: a scenario new or removed,
                         fewer allocations than saved, or allocations not countable. For a checked-in baseline.
      --allow-debug      Run from a debug build anyway (timings are then meaningless).
      -h, --help         Show this help.
    """

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "profile", arguments.count == 2 || arguments.count == 3 {
    // Runs one scenario alone for 5 s, for `perf record`; or exactly N operations, for `perf stat`'s instruction
    // count, which the machine's noise does not move (two counts apart give the instructions per operation).
    guard let benchmark = BenchMain.allScenarios.first(where: { $0.name == arguments[1] }) else {
        FileHandle.standardError.write(Data("Error: no scenario named '\(arguments[1])'\n".utf8))
        exit(64)
    }
    if arguments.count == 3 {
        guard let operations = Int(arguments[2]), operations > 0 else {
            FileHandle.standardError.write(Data("Error: '\(arguments[2])' is not a number of operations\n".utf8))
            exit(64)
        }
        try await benchmark.run(operations)
        exit(0)
    }
    let end = ContinuousClock.now + .seconds(5)
    while ContinuousClock.now < end { try await benchmark.run(1000) }
    exit(0)
}
if arguments.first == "loopback" {
    do {
        exit(await LoopbackBenchmark.run(try LoopbackBenchmark.parse(Array(arguments.dropFirst()))))
    } catch {
        FileHandle.standardError.write(Data("Error: \(error.message)\n\(usage)\n".utf8))
        exit(64)
    }
}
/// Runs a subcommand and exits with its status; a usage error prints the usage and exits 64.
func runSubcommand(_ body: () async throws(BenchOptions.UsageError) -> Int32) async -> Never {
    do {
        exit(try await body())
    } catch {
        FileHandle.standardError.write(Data("Error: \(error.message)\n\(usage)\n".utf8))
        exit(64)
    }
}
let subcommandArguments = Array(arguments.dropFirst())
switch arguments.first {
case "soak":
    await runSubcommand { () throws(BenchOptions.UsageError) in
        await SoakRun.run(try SoakRun.parse(subcommandArguments))
    }
case "transfer":
    await runSubcommand { () throws(BenchOptions.UsageError) in
        try await TransferProbe.run(subcommandArguments)
    }
case "memory":
    await runSubcommand { () throws(BenchOptions.UsageError) in
        await MemoryProbe.run(try MemoryProbe.parse(subcommandArguments))
    }
case "scale":
    await runSubcommand { () throws(BenchOptions.UsageError) in
        await ScaleProbe.run(try ScaleProbe.parse(subcommandArguments))
    }
default: break
}
var options = BenchOptions()
do {
    options = try BenchOptions.parse(arguments)
} catch {
    FileHandle.standardError.write(Data("Error: \(error.message)\n\(usage)\n".utf8))
    exit(BenchOptions.usesBaselineExitCodes(arguments) ? 2 : 64)
}
if options.help {
    print(usage)
    exit(0)
}
#if DEBUG
    if !options.allowDebug {
        FileHandle.standardError.write(
            Data(
                "Error: nal-bench was built in debug mode; run 'swift run -c release nal-bench' or pass --allow-debug.\n"
                    .utf8))
        exit(BenchOptions.usesBaselineExitCodes(arguments) ? 2 : 64)
    }
#endif
exit(await BenchMain.run(options))
