/// Writes parameters as `key=value` pairs joined by `&`, escaped byte by byte into a buffer.
///
/// The output is byte-identical to Alamofire 5's `URLEncoding` for the same options, with keys sorted at every level.
struct QueryStringWriter: ~Copyable {
    let arrayEncoding: URLEncoding.ArrayEncoding
    let boolEncoding: URLEncoding.BoolEncoding
    let spaceAsPlus: Bool
    /// The query written so far; may start with an existing query.
    var output: ByteBuffer
    /// Whether a `&` goes before the next pair.
    private var needsSeparator: Bool
    /// The escaped key of the value being written, for example `filter%5Blang%5D`: stack scratch while a `write`
    /// runs (`withKeyScratch`), so that writing allocates nothing for it.
    private var key = ByteBuffer()
    /// The unescaped key, kept only when a custom array encoding needs to see it.
    private var rawKey = ""
    private let tracksRawKey: Bool

    init(
        arrayEncoding: URLEncoding.ArrayEncoding,
        boolEncoding: URLEncoding.BoolEncoding,
        spaceAsPlus: Bool = false,
        appendingTo output: consuming ByteBuffer = ByteBuffer(capacity: 256),
        needsSeparator: Bool = false
    ) {
        self.arrayEncoding = arrayEncoding
        self.boolEncoding = boolEncoding
        self.spaceAsPlus = spaceAsPlus
        // A fresh buffer has room for a typical form body at once; a URL's buffer arrives with room already.
        self.output = output
        self.needsSeparator = needsSeparator
        if case .custom = arrayEncoding { tracksRawKey = true } else { tracksRawKey = false }
    }

    mutating func write(_ parameters: Parameters) throws(ParameterFault) {
        try withKeyScratch { (writer) throws(ParameterFault) in
            try parameters.forEachSortedByKey { (name, value) throws(ParameterFault) in
                try writer.writeTopLevel(name, value)
            }
        }
    }

    /// Writes a list's pairs in key order, as the same pairs in a dictionary are written; repeated keys keep the
    /// list's order.
    mutating func write(_ list: ParameterList) throws(ParameterFault) {
        let entries = list.entries
        try withKeyScratch { (writer) throws(ParameterFault) in
            if entries.count == 1 { return try writer.writeTopLevel(entries[0].0, entries[0].1) }
            try withUnsafeTemporaryAllocation(of: KeyOrder<Int>.self, capacity: entries.count) {
                (order) throws(ParameterFault) in
                for index in entries.indices {
                    order.initializeElement(at: index, to: KeyOrder(entries[index].0, at: index))
                }
                KeyOrder.sort(order) { entries[$0].0 }
                for slot in order { try writer.writeTopLevel(entries[slot.position].0, entries[slot.position].1) }
            }
        }
    }

    /// Runs `body` with `key` over 256 bytes of stack, which longer keys leave for the heap; `key` is emptied
    /// before the stack memory goes.
    private mutating func withKeyScratch(
        _ body: (inout QueryStringWriter) throws(ParameterFault) -> Void
    ) throws(ParameterFault) {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { (scratch) throws(ParameterFault) in
            key = ByteBuffer(borrowing: scratch)
            defer { key = ByteBuffer() }
            try body(&self)
        }
    }

    private mutating func writeTopLevel(_ name: String, _ value: ParameterValue) throws(ParameterFault) {
        guard !name.isEmpty else { throw ParameterFault(.emptyKey) }
        if tracksRawKey { rawKey = name }
        do throws(ParameterFault) {
            switch value {
            case .dictionary, .array:
                key.truncate(to: 0)
                PercentEncoding.appendQueryEscaped(name, spaceAsPlus: spaceAsPlus, to: &key)
                try writeValue(value, depth: 1)
            case .string, .int, .double, .bool, .null:
                // A scalar's key is its name alone, escaped straight into the output rather than through `key`.
                if needsSeparator { output.append(UInt8(ascii: "&")) }
                needsSeparator = true
                PercentEncoding.appendQueryEscaped(name, spaceAsPlus: spaceAsPlus, to: &output)
                output.append(UInt8(ascii: "="))
                try writeScalar(value)
            }
        } catch {
            throw error.under(.key(name))
        }
    }

    /// `depth` counts the containers around `value`, the top-level parameters included.
    private mutating func writeValue(_ value: ParameterValue, depth: Int) throws(ParameterFault) {
        switch value {
        case .dictionary(let dictionary):
            guard depth < ParameterValue.maximumNestingDepth else { throw ParameterFault(.nestingTooDeep) }
            let keyLength = key.count
            let parentRawKey = tracksRawKey ? rawKey : ""
            try dictionary.forEachSortedByKey { (name, nested) throws(ParameterFault) in
                guard !name.isEmpty else { throw ParameterFault(.emptyKey) }
                appendEscapedBracket(open: true)
                PercentEncoding.appendQueryEscaped(name, spaceAsPlus: spaceAsPlus, to: &key)
                appendEscapedBracket(open: false)
                if tracksRawKey { rawKey = parentRawKey + "[" + name + "]" }
                do throws(ParameterFault) {
                    try writeValue(nested, depth: depth + 1)
                } catch {
                    throw error.under(.key(name))
                }
                key.truncate(to: keyLength)
            }
            if tracksRawKey { rawKey = parentRawKey }
        case .array(let elements):
            guard depth < ParameterValue.maximumNestingDepth else { throw ParameterFault(.nestingTooDeep) }
            try writeArray(elements, depth: depth + 1)
        case .string, .int, .double, .bool, .null:
            beginPair()
            try writeScalar(value)
        }
    }

    /// Writes a value that is not a container, after its `key=`.
    @inline(__always)
    private mutating func writeScalar(_ value: ParameterValue) throws(ParameterFault) {
        switch value {
        case .string(let string):
            PercentEncoding.appendQueryEscaped(string, spaceAsPlus: spaceAsPlus, to: &output)
        case .int(let int):
            output.appendDecimal(int)
        case .double(let double):
            guard double.isFinite else { throw ParameterFault(.nonFiniteNumber) }
            // `Double.description` is what Alamofire writes on Linux (NSNumber's description there); `1e+20` has
            // a `+` that must be escaped.
            PercentEncoding.appendQueryEscaped(double.description, to: &output)
        case .bool(let bool):
            switch boolEncoding {
            case .numeric: output.append(bool ? UInt8(ascii: "1") : UInt8(ascii: "0"))
            case .literal: output.appendUTF8(bool ? "true" : "false")
            }
        case .null:
            // The bare `key=`.
            break
        case .dictionary, .array:
            // Callers hand containers to `writeValue`, never here.
            break
        }
    }

    private mutating func writeArray(_ elements: [ParameterValue], depth: Int) throws(ParameterFault) {
        let keyLength = key.count
        // A custom key replaces the parent's escaped key, which is put back after each element.
        let parentKey = tracksRawKey ? key.makeArray() : []
        let parentRawKey = tracksRawKey ? rawKey : ""
        for (index, element) in elements.enumerated() {
            switch arrayEncoding {
            case .brackets:
                appendEscapedBracket(open: true)
                appendEscapedBracket(open: false)
            case .noBrackets:
                break
            case .indexInBrackets:
                appendEscapedBracket(open: true)
                key.appendDecimal(index)
                appendEscapedBracket(open: false)
            case .custom(let makeKey):
                rawKey = makeKey(parentRawKey, index)
                guard !rawKey.isEmpty else { throw ParameterFault(.emptyKey).under(.index(index)) }
                key.truncate(to: 0)
                PercentEncoding.appendQueryEscaped(rawKey, spaceAsPlus: spaceAsPlus, to: &key)
            }
            do { try writeValue(element, depth: depth) } catch { throw error.under(.index(index)) }
            if tracksRawKey {
                key.truncate(to: 0)
                key.append(parentKey)
                rawKey = parentRawKey
            } else {
                key.truncate(to: keyLength)
            }
        }
    }

    /// Writes the separator, the key and `=`; the value follows.
    @inline(__always)
    private mutating func beginPair() {
        if needsSeparator { output.append(UInt8(ascii: "&")) }
        needsSeparator = true
        output.append(key)
        output.append(UInt8(ascii: "="))
    }

    /// `[` and `]` are escaped in keys (`%5B`, `%5D`), as Alamofire does.
    @inline(__always)
    private mutating func appendEscapedBracket(open: Bool) {
        key.append(UInt8(ascii: "%"))
        key.append(UInt8(ascii: "5"))
        key.append(open ? UInt8(ascii: "B") : UInt8(ascii: "D"))
    }
}
