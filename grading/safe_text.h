/* safe_text.h — text a student wrote, made safe to print on the grader's terminal and in its reports.
 *
 * An answers file (grading/quiz) is the student's: echoed raw, it could move the instructor's cursor,
 * retitle the terminal, forge an "OK" line over a WRONG one, or leave invalid UTF-8 that breaks the
 * reports read by other tools. The rule is grading/report.c's (what every JSON report holds): valid
 * UTF-8 with no control character but tab; invalid bytes become U+FFFD, controls (escape, carriage
 * return, newline, NUL, DEL) become '?'. Static inline, as regular.h: the quiz also compiles to
 * WebAssembly (site/quiz_wasm.sh) from the same sources, with no library of the grader's. report.c
 * still has its own copy of the rule (which keeps newlines, for multi-line outputs); tests/sh/quiz.sh
 * checks that the two give the same text for the same bytes. */
#ifndef DPC_GRADING_SAFE_TEXT_H
#define DPC_GRADING_SAFE_TEXT_H

#include <stddef.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at p (of at most n bytes), 0 when it is not one. Overlong
 * forms, surrogates and code points past U+10FFFF are invalid. */
static inline size_t safe_utf8_len(const unsigned char *p, size_t n) {
    if (p[0] < 0x80) return 1;
    size_t len = p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 && p[0] <= 0xDF ? 2 : 0;
    if (len == 0 || len > n || p[0] > 0xF4) return 0;
    for (size_t i = 1; i < len; i++)
        if ((p[i] & 0xC0) != 0x80) return 0;
    if (len == 3 && ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] >= 0xA0))) return 0;
    if (len == 4 && ((p[0] == 0xF0 && p[1] < 0x90) || (p[0] == 0xF4 && p[1] >= 0x90))) return 0;
    return len;
}

static inline int safe_is_control(unsigned char c) { return (c < 0x20 && c != '\t') || c == 0x7F; }
/* A multi-byte character that is a control all the same (grading/report.c's unsafe_char): C1
 * controls U+0080-U+009F (U+009B is CSI to a terminal that takes 8-bit controls), the separators
 * U+2028/U+2029 and the bidirectional controls U+202A-U+202E, U+2066-U+2069. */
static inline int safe_is_control_mb(const unsigned char *p, size_t len) {
    if (len == 2) return p[0] == 0xC2 && p[1] <= 0x9F;
    if (len == 3 && p[0] == 0xE2 && p[1] == 0x80) return p[2] >= 0xA8 && p[2] <= 0xAE;
    if (len == 3 && p[0] == 0xE2 && p[1] == 0x81) return p[2] >= 0xA6 && p[2] <= 0xA9;
    return 0;
}

/* 1 when s is valid UTF-8 with no control character (tab included: an id has none). */
static inline int safe_text_is_clean(const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        size_t len = safe_utf8_len(p + i, n - i);
        if (len == 0 || (len == 1 && (safe_is_control(p[i]) || p[i] == '\t')) || safe_is_control_mb(p + i, len))
            return 0;
        i += len;
    }
    return 1;
}

/* The safe form of in, cut to fit out (size outlen > 0) at a character boundary; returns out. */
static inline char *safe_text(char *out, size_t outlen, const char *in) {
    const unsigned char *p = (const unsigned char *)in;
    size_t n = strlen(in), k = 0;
    for (size_t i = 0; i < n;) {
        size_t len = safe_utf8_len(p + i, n - i);
        const char *piece = (const char *)p + i;
        size_t plen = len;
        if (len == 0)
            piece = "\xEF\xBF\xBD", plen = 3, len = 1;
        else if ((len == 1 && safe_is_control(p[i])) || safe_is_control_mb(p + i, len))
            piece = "?", plen = 1;
        if (k + plen >= outlen) break;
        memcpy(out + k, piece, plen);
        k += plen;
        i += len;
    }
    out[k] = 0;
    return out;
}

#endif
