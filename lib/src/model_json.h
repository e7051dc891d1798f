/*
 * model_json.h: the model configuration as JSON, the form model files and checkpoints keep it in.
 * Internal: it takes json.h's types, which the public headers do not expose; a caller outside the
 * library reads a configuration from a model file (ag_bundle_load) instead.
 */
#ifndef AG_MODEL_JSON_H
#define AG_MODEL_JSON_H

#include "attngraph/model.h"
#include "attngraph/safetensors.h"
#include "json.h"
/* internal to the library: not exported from the shared library (only the public headers are) */
#pragma GCC visibility push(hidden)

/** \function ag_model_config_to_json / ag_model_config_from_json
 * The configuration as a JSON object (the model file keeps it); from_json validates every field
 * on its own (ag_model_create() checks how they fit together).
 * \return to_json: AG_SUCCESS; AG_EINVAL (a NULL argument; an enum field out of range, or a
 *         count of readouts or blocks outside 1..its maximum: names the first one, and nothing
 *         is written); AG_ENOMEM (sb->failed is set, also if it was before the call).
 *         from_json: AG_SUCCESS; AG_EMODEL (not an object; a field missing, of the wrong type or
 *         out of range, a seed other than 1 to 20 decimal digits up to 2^64-1: names the first
 *         one). */
ag_error_t ag_model_config_to_json(const ag_model_config_t *cfg, ag_strbuf_t *sb);
ag_error_t ag_model_config_from_json(ag_model_config_t *cfg, const ag_json_t *json);

/* Whether `members` models of configuration cfg fit the weights a file holds (modelfile.c), checked
 * before any is built: a few edited bytes ("hidden": 400000000) would otherwise have the reader
 * allocate gigabytes. AG_SUCCESS, or AG_EMODEL naming path and the sizes. Model files and
 * checkpoints (whose weights the optimizer's moments triple) both call it. */
ag_error_t ag_i_model_config_fits(const ag_model_config_t *cfg, int64_t members, const ag_safetensors_t *file,
                                  const char *path);

#pragma GCC visibility pop
#endif
