/*
 * golden_testutil.h: comparing a program's output with a stored golden file, and checking that an
 * SVG or GraphML output is well-formed XML (no XML library: a small strict checker).
 *
 * Why the comparison tolerates the last printed digit: outputs are computed in float32 through
 * BLIS, whose kernels (chosen at run time by CPU) sum in different orders, so the last bits of a
 * probability can differ between machines; any fixed number of printed decimals still flips where
 * a value sits on a rounding boundary. Measured here (BLIS_ARCH_TYPE=4, the AVX 'sandybridge'
 * kernels, against the default 'zen3' ones; 'skx' gave the same bits as 'zen3'): 10 of 96 Tox21
 * probabilities printed with 6 significant digits changed, by at most 1e-6; the Karate CSV (6
 * decimals) changed too. See tests/golden/cli/README.md.
 */
#ifndef AG_GOLDEN_TESTUTIL_H
#define AG_GOLDEN_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

/* Compares actual with expected, both NUL-terminated text. Every byte outside numbers must be
 * equal. A number is a run like -12, 0.0385, 1.45683e-05 that does not continue a word (the 0 of
 * prob0 or the 53 of SR-p53 are text). Two numbers match when they are the same text, or when at
 * least one has a fraction or an exponent and they differ by at most the largest of: two units in
 * the last printed digit of either, 1e-5 of the larger magnitude, and 1e-6. Integers must be
 * equal. Returns 1 on a match (*n_tolerated counts the numbers that matched only within
 * tolerance), 0 otherwise with the first difference (line, both texts) in why. With the
 * environment variable AG_GOLDEN_EXACT=1 only byte equality matches. */
int ag_golden_compare(const char *expected, const char *actual, int *n_tolerated, char *why, size_t whyn);

/* Checks that doc (NUL-terminated) is one well-formed XML document: valid UTF-8, no control
 * characters, an optional prolog (XML declaration, comments, processing instructions, a DOCTYPE
 * without internal subset), exactly one root element, every element closed in order, names
 * well-formed, attributes quoted and unique per element, '<' never in text or attribute values,
 * '&' only in the predefined or numeric character references, comments without "--", CDATA
 * sections closed. Counts the elements named count_name (NULL: none) into *count. Returns 1 when
 * well-formed, else 0 with the reason and its line in why. */
int ag_xml_check(const char *doc, const char *count_name, int64_t *count, char *why, size_t whyn);

#endif
