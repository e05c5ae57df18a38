import Foundation

/// A value the form cannot hold, met while encoding, at a node of the tree.
struct FormEncodingFault: Error {
    enum Kind {
        /// NaN or infinity.
        case nonFiniteNumber
        /// A container deeper than `ParameterValue.maximumNestingDepth`.
        case nestingTooDeep
    }

    let kind: Kind
    let node: Int
}

/// The tree an `Encodable` is encoded into: one flat array of nodes owned by one object. Containers handed out by
/// the `Encoder` keep writing into their node after they are returned, so the tree is shared by reference; keeping
/// the nodes in one array makes an encode allocate per container rather than per key, and coding paths are built
/// only when someone asks for one.
final class FormTree {
    enum Content {
        case empty
        case scalar(ParameterValue)
        case object
        case array
    }

    enum Key {
        case root
        case name(String)
        case index(Int)
    }

    struct Node {
        var content = Content.empty
        let key: Key
        let parent: Int
        /// Containers above this node; the root's children are at 1.
        let depth: Int
        var firstChild = -1
        var lastChild = -1
        var nextSibling = -1
        var childCount = 0
    }

    let options: URLEncodedFormEncoder
    private(set) var nodes: [Node]
    /// The first container nested deeper than `ParameterValue.maximumNestingDepth`, reported when encoding ends
    /// (container accessors cannot throw).
    private(set) var tooDeep: Int?

    init(options: URLEncodedFormEncoder) {
        self.options = options
        nodes = [Node(key: .root, parent: -1, depth: 0)]
        nodes.reserveCapacity(16)
    }

    func addChild(of parent: Int, key: Key) -> Int {
        let index = nodes.count
        nodes.append(Node(key: key, parent: parent, depth: nodes[parent].depth + 1))
        let previous = nodes[parent].lastChild
        if previous >= 0 { nodes[previous].nextSibling = index } else { nodes[parent].firstChild = index }
        nodes[parent].lastChild = index
        nodes[parent].childCount += 1
        return index
    }

    func set(_ content: Content, at node: Int) {
        switch content {
        case .object, .array:
            if nodes[node].depth >= ParameterValue.maximumNestingDepth, tooDeep == nil { tooDeep = node }
        case .empty, .scalar:
            break
        }
        nodes[node].content = content
    }

    func childCount(of node: Int) -> Int { nodes[node].childCount }

    /// The coding path from the root to `node`.
    func codingPath(of node: Int) -> [any CodingKey] {
        var path: [any CodingKey] = []
        var current = node
        while current > 0 {
            switch nodes[current].key {
            case .root: break
            case .name(let name): path.append(FormIndexKey(stringValue: name))
            case .index(let index): path.append(FormIndexKey(intValue: index))
            }
            current = nodes[current].parent
        }
        return path.reversed()
    }

    /// `node`'s location in key-path notation: `filter[min]`, `tags[0]`.
    func keyPath(of node: Int) -> String {
        KeyPathNotation.render(codingPath: codingPath(of: node))
    }

    /// The value at `node` as parameters. Recursion is bounded: a tree deeper than the nesting limit is refused
    /// before this runs.
    func parameterValue(at node: Int) -> ParameterValue {
        switch nodes[node].content {
        case .empty:
            return .dictionary([:])
        case .scalar(let value):
            return value
        case .object:
            var object = [String: ParameterValue](minimumCapacity: nodes[node].childCount)
            var child = nodes[node].firstChild
            while child >= 0 {
                if case .name(let name) = nodes[child].key { object[name] = parameterValue(at: child) }
                child = nodes[child].nextSibling
            }
            return .dictionary(object)
        case .array:
            var elements: [ParameterValue] = []
            elements.reserveCapacity(nodes[node].childCount)
            var child = nodes[node].firstChild
            while child >= 0 {
                elements.append(parameterValue(at: child))
                child = nodes[child].nextSibling
            }
            return .array(elements)
        }
    }
}

/// The `Encoder` behind `URLEncodedFormEncoder`: a tree and a node, two words, so passing it as `any Encoder`
/// does not allocate.
struct FormValueEncoder: Encoder {
    let tree: FormTree
    let node: Int
    var codingPath: [any CodingKey] { tree.codingPath(of: node) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        tree.set(.object, at: node)
        return KeyedEncodingContainer(FormKeyedContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        tree.set(.array, at: node)
        return FormUnkeyedContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        FormSingleValueContainer(encoder: self)
    }

    /// An encoder for a new child of this node.
    func child(_ key: FormTree.Key) -> FormValueEncoder {
        FormValueEncoder(tree: tree, node: tree.addChild(of: node, key: key))
    }

    /// Stores `value` in this encoder's node: primitives directly, dates and data per the options, anything else
    /// through its own `encode(to:)`.
    func store(_ value: some Encodable) throws {
        switch value {
        case let string as String: tree.set(.scalar(.string(string)), at: node)
        case let bool as Bool: tree.set(.scalar(.bool(bool)), at: node)
        case let int as Int: tree.set(.scalar(.int(int)), at: node)
        case let double as Double:
            guard double.isFinite else { throw FormEncodingFault(kind: .nonFiniteNumber, node: node) }
            tree.set(.scalar(.double(double)), at: node)
        case let float as Float:
            guard float.isFinite else { throw FormEncodingFault(kind: .nonFiniteNumber, node: node) }
            // Float's own shortest text: widening to Double would write 0.1 as 0.10000000149011612.
            tree.set(.scalar(.string(float.description)), at: node)
        case let integer as any BinaryInteger:
            tree.set(.scalar(Int(exactly: integer).map(ParameterValue.int) ?? .string("\(integer)")), at: node)
        case let date as Date: try storeDate(date)
        case let data as Data: try storeData(data)
        case let url as URL: tree.set(.scalar(.string(url.absoluteString)), at: node)
        case let decimal as Decimal: tree.set(.scalar(.string(decimal.description)), at: node)
        default:
            // Stop here rather than let a recursive `encode(to:)` run on until the stack overflows.
            guard tree.nodes[node].depth < ParameterValue.maximumNestingDepth else {
                throw FormEncodingFault(kind: .nestingTooDeep, node: node)
            }
            try value.encode(to: self)
        }
    }

    private func storeDate(_ date: Date) throws {
        switch tree.options.dateEncoding {
        case .deferredToDate: try date.encode(to: self)
        case .secondsSince1970: tree.set(.scalar(.double(date.timeIntervalSince1970)), at: node)
        case .millisecondsSince1970: tree.set(.scalar(.double(date.timeIntervalSince1970 * 1000)), at: node)
        case .iso8601: tree.set(.scalar(.string(date.ISO8601Format())), at: node)
        case .custom(let format): tree.set(.scalar(.string(try format(date))), at: node)
        }
    }

    private func storeData(_ data: Data) throws {
        switch tree.options.dataEncoding {
        case .deferredToData: try data.encode(to: self)
        case .base64: tree.set(.scalar(.string(data.base64EncodedString())), at: node)
        case .custom(let format): tree.set(.scalar(.string(try format(data))), at: node)
        }
    }
}

struct FormKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: FormValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func child(for key: any CodingKey) -> FormValueEncoder {
        encoder.child(.name(encoder.tree.options.keyEncoding.encode(key.stringValue)))
    }

    mutating func encodeNil(forKey key: Key) throws {
        let child = child(for: key)
        child.tree.set(.scalar(.null), at: child.node)
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
        encoder.child(.name("super"))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        child(for: key)
    }
}

struct FormUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: FormValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { encoder.tree.childCount(of: encoder.node) }

    private func nextChild() -> FormValueEncoder {
        encoder.child(.index(count))
    }

    mutating func encodeNil() throws {
        let child = nextChild()
        child.tree.set(.scalar(.null), at: child.node)
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
        encoder.tree.set(.scalar(.null), at: encoder.node)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try encoder.store(value)
    }
}

/// A coding key for names, array positions and `super`.
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
