import Foundation
import NALCommandLine

// The commands live in NALCommandLine, where the tests and the fuzzer reach them too.
exit(await CLI.runAsProcess(Array(CommandLine.arguments.dropFirst()), terminal: .current))
