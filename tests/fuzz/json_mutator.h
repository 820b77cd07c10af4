/*
 * json_mutator.h - a structure-aware mutation for libFuzzer targets whose
 * input is a JSON document (tests/fuzz/fuzz_solve.c).
 *
 * Byte-level mutations mostly break the JSON syntax, so the parser refuses
 * them and the code behind it is never reached.  This mutation keeps the
 * document valid JSON and changes one value in a way a careless or hostile
 * user might: a number replaced by an extreme or degenerate one (0, -1,
 * 1e-300, 1e300, 1e6 times, its negation), a string by another string of the
 * document (a name where another is meant) or by "", a key of an object
 * removed, an element of an array removed or duplicated.  An input that is
 * not JSON gets libFuzzer's own mutation.
 */
#ifndef FUZZ_JSON_MUTATOR_H
#define FUZZ_JSON_MUTATOR_H

#include <stddef.h>
#include <stdint.h>

/* One mutation of data[0..size) in place (at most max_size bytes); returns
 * the new size, as LLVMFuzzerCustomMutator does. */
size_t json_mutate(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

#endif
