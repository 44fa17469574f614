import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

extension PreSharedKey {
    /// The largest key file read: a key line is under 200 bytes; anything much larger is not one.
    static let maxFileSize = 4096

    /// Writes the key file: created with mode 0600 and `O_EXCL`, so an existing file (or
    /// a symbolic link planted at `path`) is never overwritten.
    /// - Throws: `InputError` naming the file when it exists or cannot be created.
    public func write(to path: String) throws {
        try PrivateFile.create(path, bytes: Array(fileText.utf8), noun: "key file", kept: "a key")
    }

    /// Reads a key file, refusing one that group or others may read or write.
    /// - Throws: `InputError` naming the file (and the line, for a malformed one).
    public static func load(from path: String) throws -> PreSharedKey {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            let e = errno
            if e == ENOENT {
                throw InputError(source: path, "no such key file (create one with `peerbench psk new \(path)` and copy it to the other host)")
            }
            throw InputError(source: path, "cannot open the key file: \(String(cString: strerror(e)))")
        }
        defer { _ = Glibc.close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw InputError(source: path, "cannot stat the key file: \(String(cString: strerror(errno)))") }
        guard st.st_mode & S_IFMT == S_IFREG else { throw InputError(source: path, "not a regular file") }
        let exposed = st.st_mode & 0o066
        if exposed != 0 {
            let mode = String(st.st_mode & 0o777, radix: 8)
            throw InputError(
                source: path,
                "the key file is \(exposed & 0o044 != 0 ? "readable" : "writable") by group or others (mode \(mode)); "
                    + "a pre-shared key must be private: run `chmod 600 \(path)`")
        }
        guard st.st_size <= maxFileSize else {
            throw InputError(source: path, "\(st.st_size) bytes is too large for a key file (at most \(maxFileSize))")
        }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        var got = 0
        while got < bytes.count {
            let n = bytes.withUnsafeMutableBytes { b in Glibc.read(fd, b.baseAddress! + got, b.count - got) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw InputError(source: path, "cannot read the key file: \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            got += n
        }
        return try parse(Array(bytes[..<got]), source: path)
    }

    /// Parses a key file's content; errors name `source` and the line.
    public static func parse(_ content: [UInt8], source: String) throws -> PreSharedKey {
        guard let text = String(validating: content, as: UTF8.self) else { throw InputError(source: source, "the key file is not UTF-8 text") }
        var found: (key: PreSharedKey, line: Int)?
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let lineNumber = index + 1
            var line = raw
            while let last = line.last, last == " " || last == "\t" { line.removeLast() }
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) || line.first == "#" { continue }
            func bad(_ why: String) -> InputError { InputError(source: source, path: "line \(lineNumber)", why) }
            if let found { throw bad("a second key line (the first is line \(found.line)); a key file holds one key") }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.first.map(String.init) == formatTag else {
                throw bad("expected `\(formatTag) IDENTITY HEX64`, a key file written by `peerbench psk new`")
            }
            guard words.count == 3 else { throw bad("expected 3 words (`\(formatTag) IDENTITY HEX64`), found \(words.count)") }
            if let problem = identityProblem(String(words[1])) { throw bad(problem) }
            guard let key = Hex.decode(words[2], count: keyBytes) else {
                throw bad(
                    "the key must be \(keyBytes * 2) hex digits (\(keyBytes * 8) bits)"
                        + (words[2].count == keyBytes * 2 ? ", found a character that is not one" : ", found \(words[2].count) characters"))
            }
            found = (try PreSharedKey(identity: String(words[1]), bytes: key), lineNumber)
        }
        guard let found else { throw InputError(source: source, "no key line (`\(formatTag) IDENTITY HEX64`) in the file") }
        return found.key
    }
}
