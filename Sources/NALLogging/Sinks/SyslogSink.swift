#if canImport(Glibc)
    import Glibc

    /// Sends entries to the system log through glibc's `syslog`, tagged `subsystem:category`.
    public struct SyslogSink: LogSink {
        /// Opens the connection to the system log under `identifier` (the program name by default).
        public init(identifier: String? = nil) {
            if let identifier {
                // openlog keeps the pointer, so the string must live for the process.
                let persistent = strdup(identifier)
                openlog(persistent, LOG_PID, LOG_USER)
            }
        }

        /// Sends one entry.
        public func write(_ entry: LogEntry) {
            let text = "\(entry.subsystem):\(entry.category) \(entry.message.replacingNewlines)"
            text.withCString { message in
                withVaList([message]) { vsyslog(Self.priority(entry.level), "%s", $0) }
            }
        }

        /// The syslog priority for a level.
        static func priority(_ level: LogLevel) -> Int32 {
            switch level {
            case .debug: LOG_DEBUG
            case .info: LOG_INFO
            case .notice: LOG_NOTICE
            case .error: LOG_ERR
            case .fault: LOG_CRIT
            }
        }
    }
#endif
