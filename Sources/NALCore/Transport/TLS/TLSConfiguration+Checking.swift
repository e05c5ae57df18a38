import Foundation
import NALSupport

extension TLSConfiguration {
    /// What a transport hands its TLS library, once the configuration has been checked: paths of files that are
    /// there, regular and PEM, and the pins in libcurl's form.
    struct Checked: Sendable, Equatable {
        /// The file of `.pemFile` trust roots, or `nil` for the system's.
        var certificateAuthorities: String?
        var certificate: String?
        var privateKey: String?
        /// The files' bytes as they were read: the transport hands these to libcurl, which would otherwise open the
        /// paths again for each connection. Never shown (the mirror below gives their sizes).
        var certificateAuthoritiesPEM: Data?
        var certificatePEM: Data?
        var privateKeyPEM: Data?
        /// Never logged or shown: `ClientIdentity`'s descriptions leave it out.
        var passphrase: String?
        /// `sha256//PIN;sha256//PIN`, or `nil` for none.
        var pinnedPublicKeys: String?
        var minimumVersion: ProtocolVersion
    }

    /// The longest passphrase OpenSSL reads (`PEM_BUFSIZE` less its NUL).
    static let longestPassphrase = 1023

    /// The most a PEM file of a configuration may hold: a system bundle is about 200 KiB.
    static let largestFile = 16 << 20

    /// Checks every file and pin, so that a mistake fails when the transport is made, naming the file or pin, and
    /// not at the first call.
    /// - Throws: `NALError.tls` with `.localFile` or `.invalidPin`.
    func checked() throws(NALError) -> Checked {
        var checked = Checked(minimumVersion: minimumVersion)
        if case .pemFile(let file) = trustRoots {
            checked.certificateAuthoritiesPEM = try Self.check(file, holds: ["CERTIFICATE-----"], what: "certificates")
            checked.certificateAuthorities = file.path
        }
        if let clientIdentity {
            let certificate = try Self.check(
                clientIdentity.certificate, holds: ["CERTIFICATE-----"], what: "a certificate")
            let key = try Self.check(clientIdentity.privateKey, holds: ["PRIVATE KEY-----"], what: "a private key")
            // OpenSSL reads at most 1,023 bytes of a passphrase, and libcurl stops at a NUL: anything past either
            // would be silently left out.
            if let passphrase = clientIdentity.passphrase,
                passphrase.utf8.count > Self.longestPassphrase || passphrase.utf8.contains(0)
            {
                throw Self.failure(
                    .localFile(clientIdentity.privateKey),
                    "cannot be opened with its passphrase: one of over \(Self.longestPassphrase) bytes, or with a NUL, "
                        + "is not one OpenSSL reads whole")
            }
            checked.certificatePEM = certificate
            checked.privateKeyPEM = key
            // Without a passphrase, OpenSSL would ask for one on the terminal and wait.
            if clientIdentity.passphrase == nil, Self.isEncrypted(key) {
                throw Self.failure(
                    .localFile(clientIdentity.privateKey), "is an encrypted private key, and no passphrase was given")
            }
            checked.certificate = clientIdentity.certificate.path
            checked.privateKey = clientIdentity.privateKey.path
            checked.passphrase = clientIdentity.passphrase
        }
        if !pinnedPublicKeys.isEmpty {
            var pins: [String] = []
            for pin in pinnedPublicKeys {
                let digest = pin.hasPrefix("sha256//") ? String(pin.dropFirst("sha256//".count)) : pin
                guard digest.utf8.count == 44, let bytes = Data(base64Encoded: digest), bytes.count == 32,
                    bytes.base64EncodedString() == digest
                else {
                    throw Self.failure(.invalidPin(pin), "")
                }
                pins.append("sha256//\(digest)")
            }
            checked.pinnedPublicKeys = pins.joined(separator: ";")
        }
        return checked
    }

    /// The bytes of `file`, once it is known to be a regular, readable file with a PEM block of one of `markers`.
    @discardableResult
    private static func check(_ file: URL, holds markers: [String], what: String) throws(NALError) -> Data {
        guard file.isFileURL else { throw failure(.localFile(file), "is not a file URL") }
        let contents: Data
        do {
            contents = try BoundedFile.contents(ofPath: file.path, atMost: largestFile)
        } catch {
            throw failure(.localFile(file), error.problem)
        }
        let text = String(decoding: contents, as: UTF8.self)
        guard markers.contains(where: { text.contains("-----BEGIN ") && text.contains($0) }) else {
            throw failure(.localFile(file), "is not PEM: it holds no -----BEGIN block of \(what)")
        }
        return contents
    }

    /// Whether a PEM key is encrypted: PKCS #8's `ENCRYPTED PRIVATE KEY`, or the older `Proc-Type: 4,ENCRYPTED`.
    private static func isEncrypted(_ key: Data) -> Bool {
        let text = String(decoding: key, as: UTF8.self)
        return text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") || text.contains("Proc-Type: 4,ENCRYPTED")
    }

    private static func failure(_ check: TLSFailure.Check, _ detail: String) -> NALError {
        .tls(TLSFailure(check: check, url: nil, detail: detail))
    }
}

extension TLSConfiguration.Checked: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The files and pins; never the passphrase.
    var description: String {
        "Checked(certificateAuthorities: \(certificateAuthorities ?? "system"), certificate: \(certificate ?? "nil"), "
            + "privateKey: \(privateKey ?? "nil"), passphrase: \(passphrase == nil ? "nil" : "<redacted>"), "
            + "pinnedPublicKeys: \(pinnedPublicKeys ?? "nil"), minimumVersion: \(minimumVersion))"
    }

    var debugDescription: String { description }

    /// What `dump` and the debugger show of a transport: the same, the passphrase redacted.
    var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "certificateAuthorities": certificateAuthorities as Any, "certificate": certificate as Any,
                "privateKey": privateKey as Any, "passphrase": passphrase == nil ? "nil" : "<redacted>",
                "privateKeyPEM": privateKeyPEM.map { "<\($0.count) bytes>" } as Any,
                "pinnedPublicKeys": pinnedPublicKeys as Any, "minimumVersion": minimumVersion,
            ])
    }
}
