/// Text from a server or a file, made safe for a terminal: control and format characters (C0, DEL, C1, bidi
/// overrides) are shown escaped, `\u{1B}`, so that no escape sequence a server sends runs on the user's terminal.
enum TerminalText {
    /// `text` with every control or format character but a tab written as `\u{…}`.
    static func visible(_ text: some StringProtocol) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            let category = scalar.properties.generalCategory
            if scalar != "\t", category == .control || category == .format {
                result += scalar.escaped(asASCII: true)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
