/// `w * 10^q` as the nearest double in a few multiplications, for decimal significands
/// `strtod` would otherwise read (a journal's 16- and 17-digit numbers: 3 % of compare's
/// time went to `strtod`). The Eisel-Lemire algorithm (Lemire, "Number Parsing at a
/// Gigabyte per Second", 2021): `w`, shifted to use all 64 bits, is multiplied by a
/// 128-bit approximation of 5^q; the product's top 54 bits, rounded to nearest with ties
/// to even, are the double's significand, and its exponent follows from q and the shift.
/// nil where the product cannot decide the rounding or the result is not a normal
/// double: the caller asks `strtod` then. Powers are kept for q in -27...55 only, where
/// 5^|q| fits the 128-bit table entry exactly (q >= 0) or its reciprocal is within one
/// unit of it (q < 0) and the rounding can always be decided; other exponents go to
/// `strtod` (a record's numbers lie far inside that range).
enum EiselLemire {
    static let smallestPower = -27
    static let largestPower = 55

    /// 5^q to 128 bits, its top bit set, for q in `smallestPower...largestPower`:
    /// exact for q >= 0; for q < 0, floor(2^(127 + z) / 5^-q) + 1 with 2^z the smallest
    /// power of two at least 5^-q (the reciprocal rounded up). Made once, exactly, by
    /// integer arithmetic.
    static let powersOfFive: [(high: UInt64, low: UInt64)] = (smallestPower...largestPower).map { q in
        var p: UInt128 = 1
        for _ in 0..<abs(q) { p *= 5 }
        let c: UInt128
        if q >= 0 {
            c = p << UInt128(p.leadingZeroBitCount)
        } else {
            // Binary long division of 2^(127 + z) by p (< 2^64): 128 quotient bits.
            let z = 128 - (p - 1).leadingZeroBitCount
            var remainder: UInt128 = 1, quotient: UInt128 = 0
            for _ in 0..<(127 + z) {
                remainder <<= 1
                quotient <<= 1
                if remainder >= p {
                    remainder -= p
                    quotient |= 1
                }
            }
            c = quotient + 1
        }
        return (UInt64(truncatingIfNeeded: c >> 64), UInt64(truncatingIfNeeded: c))
    }

    /// The double nearest to `w * 10^q` (`w` > 0), or nil (see above).
    static func double(_ w: UInt64, _ q: Int) -> Double? {
        guard w != 0, q >= smallestPower, q <= largestPower else { return nil }
        let lz = w.leadingZeroBitCount
        let shifted = w << UInt64(lz)
        let power = powersOfFive[q - smallestPower]
        var (high, low) = shifted.multipliedFullWidth(by: power.high)
        // The low half decides only when the bits below the significand's 55 are all
        // ones: add the second word's contribution then.
        if high & 0x1FF == 0x1FF {
            let second = shifted.multipliedFullWidth(by: power.low).high
            let (sum, carry) = low.addingReportingOverflow(second)
            low = sum
            if carry { high &+= 1 }
        }
        let upper = Int(high >> 63)
        let shift = UInt64(upper + 9)
        var mantissa = high >> shift
        // floor(log2(10^q)) + 63, the binary exponent of the product's top bit.
        var power2 = (((152_170 + 65_536) * q) >> 16) + 63 + upper - lz + 1023
        guard power2 > 0 else { return nil }  // subnormal
        // Exactly between two doubles (only possible where 5^q is exact, q in -4...23):
        // round to even, not up.
        if low <= 1, q >= -4, q <= 23, mantissa & 3 == 1, mantissa << shift == high {
            mantissa &= ~1
        }
        mantissa += mantissa & 1
        mantissa >>= 1
        if mantissa >= 1 << 53 {
            mantissa = 1 << 52
            power2 += 1
        }
        mantissa &= ~(1 << 52)
        guard power2 < 2047 else { return nil }  // infinity
        return Double(bitPattern: UInt64(power2) << 52 | mantissa)
    }
}
