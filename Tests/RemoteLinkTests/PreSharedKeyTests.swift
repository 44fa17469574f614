import Foundation
import PeerBenchCore
import Testing

@testable import RemoteLink

/// The key file: written private and never over an existing file; refused when exposed,
/// missing or malformed, with the file (and line) named.
@Suite struct PreSharedKeyTests {
    func tempPath(_ name: String = "key.psk") -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pbc-psk-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir + "/" + name
    }

    func message(_ body: () throws -> Void) -> String {
        do {
            try body()
            return ""
        } catch { return "\(error)" }
    }

    @Test func generatedKeysAreFreshAndRoundTripThroughTheFile() throws {
        let a = try PreSharedKey.generate(identity: "lab-pi.1")
        let b = try PreSharedKey.generate()
        #expect(a.bytes.count == 32 && a.bytes != b.bytes)
        #expect(b.identity == "peerbench")
        // 32 random bytes: at least 20 distinct values (a stuck generator would give 1).
        #expect(Set(a.bytes).count > 20)
        let path = tempPath()
        try a.write(to: path)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == "peerbench-psk/1 lab-pi.1 \(a.hex)\n" && a.hex.count == 64)
        #expect(try PreSharedKey.load(from: path) == a)
        #expect("\(a)" == "pre-shared key \"lab-pi.1\"" && !"\(a)".contains(a.hex))
    }

    @Test func anExistingFileIsNeverOverwritten() throws {
        let path = tempPath()
        try "precious\n".write(toFile: path, atomically: false, encoding: .utf8)
        let text = message { try PreSharedKey.generate().write(to: path) }
        #expect(text == "\(path): the file already exists; a key is never overwritten (remove it first, or choose another name)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious\n")
        // Nor is a symbolic link followed to clobber its target.
        let link = tempPath("link.psk")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        #expect(message { try PreSharedKey.generate().write(to: link) }.contains("already exists"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious\n")
    }

    @Test func aFileOthersCanReadOrWriteIsRefusedWithTheFix() throws {
        let path = tempPath()
        try PreSharedKey.generate().write(to: path)
        chmod(path, 0o644)
        #expect(
            message { _ = try PreSharedKey.load(from: path) }
                == "\(path): the key file is readable by group or others (mode 644); a pre-shared key must be private: run `chmod 600 \(path)`")
        chmod(path, 0o620)
        #expect(message { _ = try PreSharedKey.load(from: path) }.contains("writable by group or others (mode 620)"))
        chmod(path, 0o600)
        #expect(throws: Never.self) { _ = try PreSharedKey.load(from: path) }
    }

    @Test func aMissingFileSaysHowToMakeOne() {
        let path = tempPath()
        #expect(
            message { _ = try PreSharedKey.load(from: path) }
                == "\(path): no such key file (create one with `peerbench psk new \(path)` and copy it to the other host)")
    }

    @Test func malformedFilesNameTheLine() throws {
        let hex = String(repeating: "ab", count: 32)
        func problem(_ content: String) throws -> String {
            let path = tempPath()
            _ = FileManager.default.createFile(atPath: path, contents: Data(content.utf8), attributes: [.posixPermissions: 0o600])
            return message { _ = try PreSharedKey.load(from: path) }.replacingOccurrences(of: path, with: "F")
        }
        #expect(try problem("# comment\n\npeerbench-psk/1 me \(hex)\r\n") == "")
        #expect(
            try problem("# a comment\npeerbench-psk/2 me \(hex)\n")
                == "F: line 2: expected `peerbench-psk/1 IDENTITY HEX64`, a key file written by `peerbench psk new`")
        #expect(try problem("peerbench-psk/1 \(hex)\n") == "F: line 1: expected 3 words (`peerbench-psk/1 IDENTITY HEX64`), found 2")
        #expect(try problem("peerbench-psk/1 me abcd\n") == "F: line 1: the key must be 64 hex digits (256 bits), found 4 characters")
        #expect(
            try problem("peerbench-psk/1 me \(hex.dropLast())g\n")
                == "F: line 1: the key must be 64 hex digits (256 bits), found a character that is not one")
        #expect(try problem("peerbench-psk/1 m/e \(hex)\n") == "F: line 1: the identity \"m/e\" may only hold letters, digits, '.', '_' and '-'")
        #expect(
            try problem("peerbench-psk/1 a \(hex)\n\npeerbench-psk/1 b \(hex)\n")
                == "F: line 3: a second key line (the first is line 1); a key file holds one key")
        #expect(try problem("\n# nothing\n") == "F: no key line (`peerbench-psk/1 IDENTITY HEX64`) in the file")
        #expect(try problem(String(repeating: "#", count: 5000)) == "F: 5000 bytes is too large for a key file (at most 4096)")
        let path = tempPath()
        _ = FileManager.default.createFile(atPath: path, contents: Data([0xFF, 0xFE]), attributes: [.posixPermissions: 0o600])
        #expect(message { _ = try PreSharedKey.load(from: path) } == "\(path): the key file is not UTF-8 text")
    }
}
