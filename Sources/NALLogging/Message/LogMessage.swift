import Foundation

/// A log message built by string interpolation, with OSLog's privacy and formatting options.
///
/// ```swift
/// logger.info("user \(userID) fetched \(count) items in \(ms, format: .fixed(precision: 1)) ms")
/// // user <private> fetched 3 items in 12.5 ms
/// logger.debug("token \(token, privacy: .private(mask: .hash)) for \(host, privacy: .public)")
/// ```
///
/// Dynamic strings are private by default; numbers and booleans are public.
public struct LogMessage: Sendable, ExpressibleByStringInterpolation, ExpressibleByStringLiteral {
    enum Segment: Sendable {
        case literal(String)
        case value(String, hidden: Bool, mask: LogPrivacy.Mask, alignment: LogStringAlignment)
    }

    var segments: [Segment]

    /// Creates a message without interpolated values.
    public init(stringLiteral value: String) {
        segments = [.literal(value)]
    }

    /// Creates a message from an interpolation.
    public init(stringInterpolation: StringInterpolation) {
        segments = stringInterpolation.segments
    }

    /// The message as text. Private values are masked unless `revealingPrivateValues` is true.
    public func rendered(revealingPrivateValues: Bool = false) -> String {
        var text = ""
        for segment in segments {
            switch segment {
            case .literal(let literal):
                text += literal
            case .value(let value, let hidden, let mask, let alignment):
                if !hidden || revealingPrivateValues {
                    text += alignment.apply(value)
                } else {
                    switch mask {
                    case .none: text += alignment.apply("<private>")
                    case .hash: text += alignment.apply("<mask.hash: '\(StableHash.hex(of: value))'>")
                    }
                }
            }
        }
        return text
    }
}

extension LogMessage {
    /// Collects literal text and interpolated values with their privacy.
    public struct StringInterpolation: StringInterpolationProtocol, Sendable {
        var segments: [Segment] = []

        /// Reserves room for the interpolation.
        public init(literalCapacity: Int, interpolationCount: Int) {
            segments.reserveCapacity(interpolationCount * 2 + 1)
        }

        /// Appends literal text.
        public mutating func appendLiteral(_ literal: String) {
            guard !literal.isEmpty else { return }
            segments.append(.literal(literal))
        }

        /// Appends a string, private by default.
        public mutating func appendInterpolation(
            _ value: String, align: LogStringAlignment = .none, privacy: LogPrivacy = .auto
        ) {
            append(value, publicByDefault: false, align: align, privacy: privacy)
        }

        /// Appends any describable value, private by default. Disfavoured so that integers, doubles and booleans
        /// take their own overloads (and stay public by default).
        @_disfavoredOverload
        public mutating func appendInterpolation(
            _ value: some CustomStringConvertible, align: LogStringAlignment = .none, privacy: LogPrivacy = .auto
        ) {
            append(value.description, publicByDefault: false, align: align, privacy: privacy)
        }

        /// Appends an error's description, private by default.
        public mutating func appendInterpolation(
            _ error: any Error, align: LogStringAlignment = .none, privacy: LogPrivacy = .auto
        ) {
            append(String(describing: error), publicByDefault: false, align: align, privacy: privacy)
        }

        /// Appends an integer, public by default.
        public mutating func appendInterpolation(
            _ value: some BinaryInteger, format: LogIntegerFormatting = .decimal,
            align: LogStringAlignment = .none, privacy: LogPrivacy = .auto
        ) {
            let text: String
            switch format {
            case .decimal:
                text = String(value)
            case .octal:
                text = String(value, radix: 8)
            case .hex(let includePrefix, let uppercase):
                let digits = String(value.magnitude, radix: 16, uppercase: uppercase)
                text = (value < 0 ? "-" : "") + (includePrefix ? "0x" : "") + digits
            }
            append(text, publicByDefault: true, align: align, privacy: privacy)
        }

        /// Appends a floating-point number, public by default.
        public mutating func appendInterpolation(
            _ value: Double, format: LogFloatFormatting = .shortest,
            align: LogStringAlignment = .none, privacy: LogPrivacy = .auto
        ) {
            let text: String
            switch format {
            case .shortest: text = value.description
            case .fixed(let precision): text = String(format: "%.\(max(0, precision))f", value)
            case .exponential(let precision): text = String(format: "%.\(max(0, precision))e", value)
            }
            append(text, publicByDefault: true, align: align, privacy: privacy)
        }

        /// Appends a boolean, public by default.
        public mutating func appendInterpolation(
            _ value: Bool, align: LogStringAlignment = .none, privacy: LogPrivacy = .auto
        ) {
            append(value ? "true" : "false", publicByDefault: true, align: align, privacy: privacy)
        }

        private mutating func append(
            _ text: String, publicByDefault: Bool, align: LogStringAlignment, privacy: LogPrivacy
        ) {
            segments.append(
                .value(
                    text, hidden: privacy.hides(publicByDefault: publicByDefault), mask: privacy.mask, alignment: align)
            )
        }
    }
}
