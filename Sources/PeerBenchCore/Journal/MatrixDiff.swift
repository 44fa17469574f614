import PeerBenchJSON
import PeerBenchPlugin

/// What changed between the matrix a run folder was started with (stored in its
/// manifest) and the matrix given now, in words a user can act on.
public enum MatrixDiff {
    /// One sentence per difference; empty when the documents are identical.
    public static func describe(old: JSONValue, new: JSONValue) -> [String] {
        guard old != new else { return [] }
        var out: [String] = []
        let o = old.objectValue ?? JSONObject(), n = new.objectValue ?? JSONObject()
        for key in union(o.keys, n.keys) where key != "transports" && key != "matrix" {
            switch (o[key], n[key]) {
            case (nil, let b?): out.append("\"\(key)\" was added (\(b.compactText))")
            case (let a?, nil): out.append("\"\(key)\" was removed (was \(a.compactText))")
            case (let a?, let b?) where a != b: out.append("\"\(key)\" changed from \(a.compactText) to \(b.compactText)")
            default: break
            }
        }
        out += transports(o["transports"], n["transports"])
        let om = o["matrix"], nm = n["matrix"]
        out += list("matrix.environments", om?["environments"], nm?["environments"]) { $0.stringValue ?? $0["name"]?.stringValue ?? $0.compactText }
        out += list("matrix.distances", om?["distances"], nm?["distances"]) { $0.compactText }
        out += list("matrix.payloads.counts", om?["payloads"]?["counts"], nm?["payloads"]?["counts"]) { $0.compactText }
        out += list("matrix.payloads.sizes", om?["payloads"]?["sizes"], nm?["payloads"]?["sizes"]) { $0.compactText }
        if out.isEmpty { out.append("the documents differ in layout or in keys outside the matrix dimensions") }
        return out
    }

    static func transports(_ a: JSONValue?, _ b: JSONValue?) -> [String] {
        func byLabel(_ v: JSONValue?) -> [(String, JSONValue)] {
            (v?.arrayValue ?? []).map { ($0["label"]?.stringValue ?? $0["plugin"]?.stringValue ?? "?", $0) }
        }
        let old = byLabel(a), new = byLabel(b)
        var out: [String] = []
        for (label, t) in new where !old.contains(where: { $0.0 == label }) { out.append("transport \"\(label)\" was added (\(t.compactText))") }
        for (label, _) in old where !new.contains(where: { $0.0 == label }) { out.append("transport \"\(label)\" was removed") }
        for (label, t) in new {
            guard let before = old.first(where: { $0.0 == label })?.1, before != t else { continue }
            out.append("transport \"\(label)\" changed from \(before.compactText) to \(t.compactText)")
        }
        if out.isEmpty, old.map(\.0) != new.map(\.0) { out.append("the transports were reordered") }
        return out
    }

    static func list(_ name: String, _ a: JSONValue?, _ b: JSONValue?, label: (JSONValue) -> String) -> [String] {
        let old = a?.arrayValue ?? [], new = b?.arrayValue ?? []
        guard old != new else { return [] }
        let added = new.filter { !old.contains($0) }.map(label)
        let removed = old.filter { !new.contains($0) }.map(label)
        var parts: [String] = []
        if !added.isEmpty { parts.append("added \(added.joined(separator: ", "))") }
        if !removed.isEmpty { parts.append("removed \(removed.joined(separator: ", "))") }
        if parts.isEmpty { parts.append("reordered") }
        return ["\(name): " + parts.joined(separator: "; ")]
    }

    static func union(_ a: [String], _ b: [String]) -> [String] { a + b.filter { !a.contains($0) } }
}
