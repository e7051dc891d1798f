/*
 * featurizer_json.h: the featuriser as JSON, the form model files keep it in. Internal: it takes
 * json.h's types, which the public headers do not expose; a caller outside the library gets a
 * featuriser from a model file (ag_bundle_load).
 */
#ifndef AG_FEATURIZER_JSON_H
#define AG_FEATURIZER_JSON_H

#include "attngraph/features.h"
#include "json.h"
/* internal to the library: not exported from the shared library (only the public headers are) */
#pragma GCC visibility push(hidden)

/**
 * \function ag_featurizer_to_json
 * Appends the featuriser as one JSON object (version, columns, vocabularies, statistics,
 * structural settings) to sb. Floats are written so that they read back bit-identical.
 * Check sb->failed for allocation failure.
 */
void ag_featurizer_to_json(const ag_featurizer_t *f, ag_strbuf_t *sb);

/**
 * \function ag_featurizer_from_json
 * Rebuilds a featuriser from the object ag_featurizer_to_json wrote; transforms are identical.
 * Everything is validated: any missing, mistyped, out-of-range or inconsistent member gives
 * AG_EMODEL with a message naming it.
 * \param f    Output, uninitialised; free with ag_featurizer_destroy().
 * \param obj  The parsed JSON object (json.h).
 * \return AG_SUCCESS, AG_EMODEL, AG_ENOMEM.
 */
ag_error_t ag_featurizer_from_json(ag_featurizer_t *f, const ag_json_t *obj);

#pragma GCC visibility pop
#endif
