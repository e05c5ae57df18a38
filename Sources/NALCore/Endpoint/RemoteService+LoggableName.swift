extension RemoteService {
    /// `Type.case` without associated values (`GitHub.userProfile`), or the type's name for a struct: what a log may
    /// show of a target, since payloads can hold secrets (`.login(password:)`).
    public var loggableName: String {
        let typeName = String(describing: type(of: self))
        let caseName = String(describing: self).prefix { $0 != "(" }
        return caseName == typeName ? typeName : "\(typeName).\(caseName)"
    }
}
