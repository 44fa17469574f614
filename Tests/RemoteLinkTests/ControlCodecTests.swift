import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import Testing

@testable import RemoteLink

/// Every control message survives the wire; every kind of malformed input is a typed
/// error naming what is wrong (docs/protocol/control.md).
@Suite struct ControlCodecTests {
    static let samples: [ControlMessage] = [
        .hello(.init(protocolVersions: [1, 2], softwareVersion: "0.9.0-dev", plugins: ["tcp", "udp", "quic", "tlś"])),
        .hello(.init(protocolVersions: [1], softwareVersion: "", plugins: [])),
        .cellRequest(["plugin": "tcp", "options": ["noDelay": true], "payload": ["count": 100, "size": 128]]),
        .serverReady(["port": 40_001, "hello": ["token": "abc"]]),
        .serverResult(["received": 99, "series": [1, 2.5, nil, "x"]]),
        .ping(0), .ping(UInt64.max), .pong(0x0102_0304_0506_0708),
        .error(code: ControlErrorCode.versionMismatch, message: "no common control protocol version: 1 vs 2"),
        .error(code: 0xFFFF, message: ""),
        .busy, .bye,
    ]

    @Test func everyMessageRoundTrips() throws {
        for message in Self.samples {
            let frame = try ControlFraming.encode(message)
            var decoder = ControlFrameDecoder()
            #expect(try decoder.feed(frame) == [message])
            #expect(decoder.isAtFrameBoundary)
            try decoder.finish()
        }
        // All at once, and one byte at a time: the same messages in the same order.
        let stream = try Self.samples.flatMap { try ControlFraming.encode($0) }
        var whole = ControlFrameDecoder()
        #expect(try whole.feed(stream) == Self.samples)
        var bytewise = ControlFrameDecoder()
        var got: [ControlMessage] = []
        for b in stream { got += try bytewise.feed([b]) }
        #expect(got == Self.samples)
    }

    @Test func headerAndBodiesAreTheDocumentedBytes() throws {
        #expect(try ControlFraming.encode(.bye) == [0x50, 0x42, 0x01, 0x09, 0, 0, 0, 0])
        #expect(
            try ControlFraming.encode(.ping(0x0102_0304_0506_0708))
                == [0x50, 0x42, 0x01, 0x05, 0, 0, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8])
        #expect(
            try ControlFraming.encode(.error(code: 3, message: "no"))
                == [0x50, 0x42, 0x01, 0x07, 0, 0, 0, 4, 0, 3, 0x6E, 0x6F])
        #expect(
            try ControlFraming.encode(.hello(.init(protocolVersions: [1], softwareVersion: "v", plugins: ["tcp"])))
                == [0x50, 0x42, 0x01, 0x01, 0, 0, 0, 14, 0, 1, 0, 1, 0, 1, 0x76, 0, 1, 0, 3, 0x74, 0x63, 0x70])
        #expect(try ControlFraming.encode(.serverReady(["port": 5])) == [0x50, 0x42, 0x01, 0x03, 0, 0, 0, 10] + Array(#"{"port":5}"#.utf8))
    }

    /// Decodes `bytes` as a whole stream; the error, if any.
    func error(of bytes: [UInt8]) -> ControlProtocolError? {
        var decoder = ControlFrameDecoder()
        do {
            _ = try decoder.feed(bytes)
            try decoder.finish()
            return nil
        } catch { return error }
    }

    func frame(_ type: UInt8, _ body: [UInt8]) -> [UInt8] {
        [0x50, 0x42, 0x01, type] + UInt32(body.count).bigEndianBytes + body
    }

    @Test func truncatedStreamsAreReportedWithTheirSize() throws {
        let full = try ControlFraming.encode(.ping(7))
        #expect(error(of: Array(full.prefix(5))) == .truncatedFrame(received: 5, expected: 8))
        #expect(error(of: Array(full.prefix(11))) == .truncatedFrame(received: 11, expected: 16))
        #expect(error(of: full) == nil)
        // A body shorter than its type's fields.
        #expect(error(of: frame(0x05, [1, 2, 3])) == .malformedBody(.ping, "the body ends inside the value (3 of 8 bytes)"))
        #expect(error(of: frame(0x01, [0, 2, 0, 1])) == .malformedBody(.hello, "the body ends inside a protocol version (0 of 2 bytes)"))
        #expect(error(of: frame(0x07, [9])) == .malformedBody(.error, "the body ends inside the code (1 of 2 bytes)"))
        #expect(error(of: frame(0x05, [UInt8](repeating: 0, count: 9))) == .malformedBody(.ping, "1 unexpected byte after the last field"))
        #expect(error(of: frame(0x08, [0])) == .malformedBody(.busy, "1 unexpected byte after the last field"))
        #expect(error(of: frame(0x01, [0, 0, 0, 0, 0, 0])) == .malformedBody(.hello, "it lists no protocol version"))
    }

    @Test func oversizedLengthIsRefusedFromTheHeaderAlone() throws {
        // Only the header: the decoder must refuse before waiting for (or reserving) 4 GiB.
        var decoder = ControlFrameDecoder()
        #expect(throws: ControlProtocolError.frameTooLarge(bodyLength: UInt32.max)) {
            _ = try decoder.feed([0x50, 0x42, 0x01, 0x02, 0xFF, 0xFF, 0xFF, 0xFF])
        }
        #expect(decoder.bufferedByteCount == 0)
        let limit = UInt32(ControlFraming.maxBodySize)
        #expect(error(of: [0x50, 0x42, 0x01, 0x02] + (limit + 1).bigEndianBytes) == .frameTooLarge(bodyLength: limit + 1))
        // Exactly at the limit is a frame (here an incomplete one).
        #expect(error(of: [0x50, 0x42, 0x01, 0x02] + limit.bigEndianBytes) == .truncatedFrame(received: 8, expected: ControlFraming.maxFrameSize))
        // And the encoder refuses to build one.
        let huge = JSONValue.object(JSONObject(["x": .string(String(repeating: "a", count: ControlFraming.maxBodySize))]))
        #expect(throws: ControlProtocolError.self) { _ = try ControlFraming.encode(.cellRequest(huge)) }
        #expect(
            "\(ControlProtocolError.frameTooLarge(bodyLength: 70_000))"
                == "control protocol: a frame body of 70000 bytes exceeds the limit of 65528 bytes")
    }

    @Test func badMagicVersionAndTypeFailOnTheirFirstBytes() {
        var decoder = ControlFrameDecoder()
        #expect(throws: ControlProtocolError.badMagic(0x16, 0x03)) { _ = try decoder.feed([0x16, 0x03]) }
        // The error sticks: the stream's framing is lost.
        #expect(throws: ControlProtocolError.badMagic(0x16, 0x03)) { _ = try decoder.feed(frameBytesOfBye) }
        #expect(error(of: [0x50, 0x42, 0x02]) == .unsupportedFrameVersion(2))
        #expect(error(of: frame(0x00, [])) == .unknownType(0))
        #expect(error(of: frame(0x7F, [])) == .unknownType(0x7F))
        #expect("\(ControlProtocolError.badMagic(0x16, 0x03))" == "control protocol: a frame must start with \"PB\" (0x50 0x42), got 0x16 0x03")
    }

    var frameBytesOfBye: [UInt8] { [0x50, 0x42, 0x01, 0x09, 0, 0, 0, 0] }

    @Test func badUTF8IsRefusedInEveryTextField() {
        #expect(error(of: frame(0x07, [0, 1, 0xC3, 0x28])) == .invalidUTF8(.error, field: "message"))
        #expect(error(of: frame(0x01, [0, 1, 0, 1, 0, 1, 0xFF, 0, 0])) == .invalidUTF8(.hello, field: "software version"))
        #expect(error(of: frame(0x01, [0, 1, 0, 1, 0, 0, 0, 1, 0, 2, 0xED, 0xA0])) == .invalidUTF8(.hello, field: "plugin name 1"))
        #expect(error(of: frame(0x02, Array(#"{"a":""#.utf8) + [0xFE] + Array(#""}"#.utf8))) == .invalidUTF8(.cellRequest, field: "body"))
    }

    @Test func badJSONAndNonObjectsAreRefused() throws {
        #expect(
            error(of: frame(0x02, Array(#"{"a":1"#.utf8)))
                == .invalidJSON(.cellRequest, "invalid JSON at line 1, column 7: unterminated object: expected ',' or '}'"))
        #expect(error(of: frame(0x03, Array("[1,2]".utf8))) == .invalidJSON(.serverReady, "the value is an array"))
        #expect(error(of: frame(0x04, [])) != nil)
        #expect(throws: ControlProtocolError.invalidJSON(.serverResult, "the value is a string")) {
            _ = try ControlFraming.encode(.serverResult("text"))
        }
    }
}
