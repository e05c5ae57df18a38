/// Whether an interpolated value appears in log output, like OSLog's privacy options.
public struct LogPrivacy: Sendable, Equatable {
    /// How a private value is masked.
    public enum Mask: Sendable, Equatable {
        /// `<private>`.
        case none
        /// `<mask.hash: '…'>`: a stable hash, equal for equal values across runs and processes, so entries can
        /// be correlated without revealing the value.
        case hash
    }

    enum Kind: Equatable {
        case auto, `public`, `private`
    }

    let kind: Kind
    let mask: Mask

    /// Dynamic strings and other values are private, numbers and booleans public. The default.
    public static let auto = LogPrivacy(kind: .auto, mask: .none)
    /// Always shown.
    public static let `public` = LogPrivacy(kind: .public, mask: .none)
    /// Shown as `<private>`.
    public static let `private` = LogPrivacy(kind: .private, mask: .none)

    /// Private, masked as given.
    public static func `private`(mask: Mask) -> LogPrivacy {
        LogPrivacy(kind: .private, mask: mask)
    }

    /// Whether a value of a kind that is public by default (numbers, booleans) is hidden.
    func hides(publicByDefault: Bool) -> Bool {
        switch kind {
        case .auto: !publicByDefault
        case .public: false
        case .private: true
        }
    }
}

/// How an integer is written.
public enum LogIntegerFormatting: Sendable, Equatable {
    /// Base 10. The default.
    case decimal
    /// Base 16, lower-case, with a `0x` prefix unless `includePrefix` is false.
    case hex(includePrefix: Bool = true, uppercase: Bool = false)
    /// Base 8.
    case octal

    /// `0x`-prefixed lower-case hex.
    public static var hex: LogIntegerFormatting { .hex() }
}

/// How a floating-point number is written.
public enum LogFloatFormatting: Sendable, Equatable {
    /// The shortest text that reads back as the same value. The default.
    case shortest
    /// Fixed-point with `precision` digits after the point.
    case fixed(precision: Int)
    /// Scientific notation with `precision` digits after the point.
    case exponential(precision: Int)
}

/// Padding of a value to a column width.
public enum LogStringAlignment: Sendable, Equatable {
    /// No padding. The default.
    case none
    /// Padded with spaces on the right to `columns` characters.
    case left(columns: Int)
    /// Padded with spaces on the left to `columns` characters.
    case right(columns: Int)

    func apply(_ text: String) -> String {
        switch self {
        case .none:
            return text
        case .left(let columns):
            let padding = max(0, columns - text.count)
            return padding == 0 ? text : text + String(repeating: " ", count: padding)
        case .right(let columns):
            let padding = max(0, columns - text.count)
            return padding == 0 ? text : String(repeating: " ", count: padding) + text
        }
    }
}
