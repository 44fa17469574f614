import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem

/// Bodies of the control messages, byte by byte (docs/protocol/control.md). Integers
/// are big-endian; strings are UTF-8 with a u16 byte length in front, except ERROR's
/// message, which runs to the end of the body; JSON bodies are one JSON object as UTF-8 text.
enum ControlBody {
    static func encode(_ message: ControlMessage) throws(ControlProtocolError) -> [UInt8] {
        var out: [UInt8] = []
        switch message {
        case .hello(let h):
            guard !h.protocolVersions.isEmpty else { throw .malformedBody(.hello, "it lists no protocol version") }
            guard h.protocolVersions.count <= Int(UInt16.max), h.plugins.count <= Int(UInt16.max) else {
                throw .malformedBody(.hello, "more than 65535 versions or plugins")
            }
            out += UInt16(h.protocolVersions.count).bigEndianBytes
            for v in h.protocolVersions { out += v.bigEndianBytes }
            try appendString(h.softwareVersion, to: &out, type: .hello)
            out += UInt16(h.plugins.count).bigEndianBytes
            for p in h.plugins { try appendString(p, to: &out, type: .hello) }
        case .cellRequest(let v), .serverReady(let v), .serverResult(let v):
            guard case .object = v else { throw .invalidJSON(message.type, "the value is \(v.typeName)") }
            out += Array(v.compactText.utf8)
        case .ping(let n), .pong(let n):
            out += n.bigEndianBytes
        case .error(let code, let text):
            out += code.bigEndianBytes
            out += Array(text.utf8)
        case .busy, .bye:
            break
        }
        return out
    }

    private static func appendString(_ s: String, to out: inout [UInt8], type: ControlMessageType) throws(ControlProtocolError) {
        let bytes = Array(s.utf8)
        guard bytes.count <= Int(UInt16.max) else { throw .malformedBody(type, "a string is longer than 65535 bytes") }
        out += UInt16(bytes.count).bigEndianBytes
        out += bytes
    }

    static func decode(_ type: ControlMessageType, _ body: ArraySlice<UInt8>) throws(ControlProtocolError) -> ControlMessage {
        var r = BodyReader(type: type, bytes: body)
        let message: ControlMessage
        switch type {
        case .hello:
            let count = Int(try r.u16("the version count"))
            guard count > 0 else { throw .malformedBody(.hello, "it lists no protocol version") }
            var versions: [UInt16] = []
            for _ in 0..<count { versions.append(try r.u16("a protocol version")) }
            let software = try r.string("software version")
            let pluginCount = Int(try r.u16("the plugin count"))
            var plugins: [String] = []
            for i in 0..<pluginCount { plugins.append(try r.string("plugin name \(i + 1)")) }
            message = .hello(.init(protocolVersions: versions, softwareVersion: software, plugins: plugins))
        case .cellRequest: message = .cellRequest(try json(type, r.take(r.remaining, "the JSON text")))
        case .serverReady: message = .serverReady(try json(type, r.take(r.remaining, "the JSON text")))
        case .serverResult: message = .serverResult(try json(type, r.take(r.remaining, "the JSON text")))
        case .ping: message = .ping(try r.u64("the value"))
        case .pong: message = .pong(try r.u64("the value"))
        case .error:
            let code = try r.u16("the code")
            message = .error(code: code, message: try r.rest("message"))
        case .busy: message = .busy
        case .bye: message = .bye
        }
        guard r.remaining == 0 else {
            throw .malformedBody(type, "\(r.remaining) unexpected byte\(r.remaining == 1 ? "" : "s") after the last field")
        }
        return message
    }

    private static func json(_ type: ControlMessageType, _ body: ArraySlice<UInt8>) throws(ControlProtocolError) -> JSONValue {
        // The project's parser replaces bad UTF-8; the wire must reject it.
        guard String(validating: body, as: UTF8.self) != nil else { throw .invalidUTF8(type, field: "body") }
        let value: JSONValue
        do { value = try JSONParser.parse(Array(body)) } catch { throw .invalidJSON(type, error.description) }
        guard case .object = value else { throw .invalidJSON(type, "the value is \(value.typeName)") }
        return value
    }
}

/// Reads fields off a body, throwing `malformedBody` naming the field that is cut short.
private struct BodyReader {
    let type: ControlMessageType
    let bytes: ArraySlice<UInt8>
    var at: Int

    init(type: ControlMessageType, bytes: ArraySlice<UInt8>) {
        self.type = type
        self.bytes = bytes
        at = bytes.startIndex
    }

    var remaining: Int { bytes.endIndex - at }

    mutating func take(_ n: Int, _ field: String) throws(ControlProtocolError) -> ArraySlice<UInt8> {
        guard remaining >= n else { throw .malformedBody(type, "the body ends inside \(field) (\(remaining) of \(n) bytes)") }
        defer { at += n }
        return bytes[at..<at + n]
    }

    mutating func u16(_ field: String) throws(ControlProtocolError) -> UInt16 {
        try take(2, field).reduce(0) { $0 << 8 | UInt16($1) }
    }

    mutating func u64(_ field: String) throws(ControlProtocolError) -> UInt64 {
        try take(8, field).reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func string(_ field: String) throws(ControlProtocolError) -> String {
        let n = Int(try u16("the length of \(field)"))
        return try utf8(try take(n, field), field)
    }

    mutating func rest(_ field: String) throws(ControlProtocolError) -> String {
        try utf8(try take(remaining, field), field)
    }

    private func utf8(_ b: ArraySlice<UInt8>, _ field: String) throws(ControlProtocolError) -> String {
        guard let s = String(validating: b, as: UTF8.self) else { throw .invalidUTF8(type, field: field) }
        return s
    }
}
