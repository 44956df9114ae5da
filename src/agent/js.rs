//! JavaScript's own text rules, which the JavaScript agents (Claude Code, Gemini CLI) follow:
//! what `\s` and `trim()` count as space, and how `String(number)` prints a number.

use unicode_general_category::{GeneralCategory, get_general_category};

/// JavaScript's `String.prototype.trim` set: `WhiteSpace` and `LineTerminator` (`\t \v \f`, space,
/// NBSP, U+FEFF, every `Zs`, `\n \r`, U+2028, U+2029). Not U+0085, not U+200B.
pub(crate) fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n'
            | '\u{b}'
            | '\u{c}'
            | '\r'
            | ' '
            | '\u{a0}'
            | '\u{feff}'
            | '\u{2028}'
            | '\u{2029}'
    ) || get_general_category(c) == GeneralCategory::SpaceSeparator
}

/// `text.trim()` as JavaScript trims.
pub(crate) fn js_trim(text: &str) -> &str {
    text.trim_matches(is_js_space)
}

/// `String(number)` as JavaScript writes it: the shortest digits that read back the same, in
/// plain notation from 1e-7 up to (not including) 1e21, in exponent notation (`1e+21`, `1e-7`)
/// outside; `Infinity`, `-Infinity`, `NaN`; `-0` as `0`.
pub(crate) fn js_number(value: f64) -> String {
    if value.is_nan() {
        return "NaN".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if value == 0.0 {
        return "0".into();
    }
    // Rust's `{:e}` gives the shortest round-trip digits: `d.ddde±x`.
    let formatted = format!("{:e}", value.abs());
    let (mantissa, exponent) = formatted.split_once('e').unwrap_or((&formatted, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exponent: i64 = exponent.parse().unwrap_or(0);
    let k = i64::try_from(digits.len()).unwrap_or(i64::MAX);
    // n as in ECMA-262 Number::toString: the value is 0.digits × 10^n.
    let n = exponent + 1;
    let sign = if value < 0.0 { "-" } else { "" };
    let body = if k <= n && n <= 21 {
        format!(
            "{digits}{}",
            "0".repeat(usize::try_from(n - k).unwrap_or(0))
        )
    } else if 0 < n && n <= 21 {
        let split = usize::try_from(n).unwrap_or(0);
        format!("{}.{}", &digits[..split], &digits[split..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat(usize::try_from(-n).unwrap_or(0)))
    } else {
        let e = n - 1;
        let e = if e >= 0 {
            format!("+{e}")
        } else {
            e.to_string()
        };
        if k == 1 {
            format!("{digits}e{e}")
        } else {
            format!("{}.{}e{e}", &digits[..1], &digits[1..])
        }
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_javascript_prints_them() {
        for (value, text) in [
            (31.0, "31"),
            (1000.0, "1000"),
            (0.5, "0.5"),
            (-0.0, "0"),
            (1e21, "1e+21"),
            (1.234_567_890_123_456_9e23, "1.2345678901234569e+23"),
            (12_345_678_901_234_567_890.0, "12345678901234567000"),
            (0.001, "0.001"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (0.000_001, "0.000001"),
            (-2.5, "-2.5"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
            (f64::NAN, "NaN"),
            (123.456, "123.456"),
        ] {
            assert_eq!(js_number(value), text, "{value}");
        }
    }

    #[test]
    fn space_is_javascript_s() {
        for c in [
            '\t', '\u{a0}', '\u{1680}', '\u{2007}', '\u{2028}', '\u{3000}', '\u{feff}',
        ] {
            assert!(is_js_space(c), "{c:?}");
        }
        for c in ['\u{85}', '\u{200b}', '\u{180e}', 'x'] {
            assert!(!is_js_space(c), "{c:?}");
        }
        assert_eq!(js_trim("\u{feff} a \u{2028}"), "a");
    }
}
