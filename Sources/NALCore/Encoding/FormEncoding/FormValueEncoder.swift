import Foundation

/// A NaN or infinite number met while encoding, with the coding path to it.
struct FormEncodingFault: Error {
    let codingPath: [any CodingKey]
}

/// One value in the tree an `Encodable` is encoded into. A reference type, because containers handed out by the
/// `Encoder` keep writing into their node after they are returned.
final class FormNode {
    enum Content {
        case empty
        case scalar(ParameterValue)
        case object
        case array
    }

    var content = Content.empty
    var children: [String: FormNode] = [:]
    var elements: [FormNode] = []

    var parameterValue: ParameterValue {
        switch content {
        case .empty: .dictionary([:])
        case .scalar(let value): value
        case .object: .dictionary(children.mapValues(\.parameterValue))
        case .array: .array(elements.map(\.parameterValue))
        }
    }
}

/// The `Encoder` behind `URLEncodedFormEncoder`.
struct FormValueEncoder: Encoder {
    let options: URLEncodedFormEncoder
    let node: FormNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.content = .object
        return KeyedEncodingContainer(FormKeyedContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.content = .array
        return FormUnkeyedContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        FormSingleValueContainer(encoder: self)
    }

    /// An encoder for a child node one key deeper.
    func child(_ node: FormNode, key: any CodingKey) -> FormValueEncoder {
        FormValueEncoder(options: options, node: node, codingPath: codingPath + [key])
    }

    /// Stores `value` in this encoder's node: primitives directly, dates and data per the options, anything else
    /// through its own `encode(to:)`.
    func store(_ value: some Encodable) throws {
        switch value {
        case let string as String: node.content = .scalar(.string(string))
        case let bool as Bool: node.content = .scalar(.bool(bool))
        case let int as Int: node.content = .scalar(.int(int))
        case let double as Double:
            guard double.isFinite else { throw FormEncodingFault(codingPath: codingPath) }
            node.content = .scalar(.double(double))
        case let float as Float:
            guard float.isFinite else { throw FormEncodingFault(codingPath: codingPath) }
            // Float's own shortest text: widening to Double would write 0.1 as 0.10000000149011612.
            node.content = .scalar(.string(float.description))
        case let integer as any BinaryInteger:
            node.content = .scalar(Int(exactly: integer).map(ParameterValue.int) ?? .string("\(integer)"))
        case let date as Date: try storeDate(date)
        case let data as Data: try storeData(data)
        case let url as URL: node.content = .scalar(.string(url.absoluteString))
        case let decimal as Decimal: node.content = .scalar(.string(decimal.description))
        default: try value.encode(to: self)
        }
    }

    private func storeDate(_ date: Date) throws {
        switch options.dateEncoding {
        case .deferredToDate: try date.encode(to: self)
        case .secondsSince1970: node.content = .scalar(.double(date.timeIntervalSince1970))
        case .millisecondsSince1970: node.content = .scalar(.double(date.timeIntervalSince1970 * 1000))
        case .iso8601: node.content = .scalar(.string(date.ISO8601Format()))
        case .custom(let format): node.content = .scalar(.string(try format(date)))
        }
    }

    private func storeData(_ data: Data) throws {
        switch options.dataEncoding {
        case .deferredToData: try data.encode(to: self)
        case .base64: node.content = .scalar(.string(data.base64EncodedString()))
        case .custom(let format): node.content = .scalar(.string(try format(data)))
        }
    }
}

struct FormKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: FormValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func child(for key: any CodingKey) -> FormValueEncoder {
        let node = FormNode()
        encoder.node.children[encoder.options.keyEncoding.encode(key.stringValue)] = node
        return encoder.child(node, key: key)
    }

    mutating func encodeNil(forKey key: Key) throws {
        child(for: key).node.content = .scalar(.null)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try child(for: key).store(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        child(for: key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        child(for: key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        child(for: FormIndexKey(stringValue: "super"))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        child(for: key)
    }
}

struct FormUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: FormValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { encoder.node.elements.count }

    private func nextChild() -> FormValueEncoder {
        let node = FormNode()
        let key = FormIndexKey(intValue: encoder.node.elements.count)
        encoder.node.elements.append(node)
        return encoder.child(node, key: key)
    }

    mutating func encodeNil() throws {
        nextChild().node.content = .scalar(.null)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try nextChild().store(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    )
        -> KeyedEncodingContainer<NestedKey>
    {
        nextChild().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        nextChild().unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        nextChild()
    }
}

struct FormSingleValueContainer: SingleValueEncodingContainer {
    let encoder: FormValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws {
        encoder.node.content = .scalar(.null)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try encoder.store(value)
    }
}

/// A coding key for array positions and `super`.
struct FormIndexKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}
