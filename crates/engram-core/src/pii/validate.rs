//! Checksums that separate real identifiers from look-alikes.

/// Luhn (mod 10) over ASCII digits.
pub fn luhn(digits: &[u8]) -> bool {
    let mut sum = 0u32;
    for (i, d) in digits.iter().rev().enumerate() {
        let mut v = u32::from(d - b'0');
        if i % 2 == 1 {
            v *= 2;
            if v > 9 {
                v -= 9;
            }
        }
        sum += v;
    }
    sum.is_multiple_of(10)
}

/// Mainland China resident ID (GB 11643-1999): 17 digits + ISO 7064 MOD 11-2 check
/// character, with a plausible birth date in positions 7–14.
pub fn china_id(id: &[u8]) -> bool {
    if id.len() != 18 || !id[..17].iter().all(u8::is_ascii_digit) {
        return false;
    }
    const W: [u32; 17] = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
    const CHECK: &[u8; 11] = b"10X98765432";
    let sum: u32 = id[..17].iter().zip(W).map(|(d, w)| u32::from(d - b'0') * w).sum();
    let expected = CHECK[(sum % 11) as usize];
    if id[17].to_ascii_uppercase() != expected {
        return false;
    }
    let num = |r: core::ops::Range<usize>| id[r].iter().fold(0u32, |a, d| a * 10 + u32::from(d - b'0'));
    let (y, m, d) = (num(6..10), num(10..12), num(12..14));
    (1900..=2100).contains(&y) && (1..=12).contains(&m) && (1..=31).contains(&d)
}

/// IBAN: 15–34 alphanumerics, country letters, mod 97 of the rearranged number is 1.
pub fn iban(s: &[u8]) -> bool {
    if !(15..=34).contains(&s.len()) || !s[..2].iter().all(u8::is_ascii_uppercase) || !s[2..4].iter().all(u8::is_ascii_digit) {
        return false;
    }
    let mut rem = 0u32;
    for &c in s[4..].iter().chain(&s[..4]) {
        let v = match c {
            b'0'..=b'9' => u32::from(c - b'0'),
            b'A'..=b'Z' => u32::from(c - b'A') + 10,
            _ => return false,
        };
        rem = if v >= 10 { (rem * 100 + v) % 97 } else { (rem * 10 + v) % 97 };
    }
    rem == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_good_and_bad_identifiers() {
        assert!(luhn(b"4111111111111111") && !luhn(b"4111111111111112"));
        assert!(china_id(b"11010519491231002X") && !china_id(b"110105194912310021"));
        assert!(iban(b"GB82WEST12345698765432") && !iban(b"GB82WEST12345698765433"));
        assert!(iban(b"DE89370400440532013000"));
    }
}
