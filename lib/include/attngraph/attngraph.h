/*
 * attngraph.h: the umbrella header of attn-graph, graph self-attention networks in C on igraph.
 */
#ifndef ATTNGRAPH_H
#define ATTNGRAPH_H

#include "attngraph/common.h"
#include "attngraph/matrix.h"
#include "attngraph/graph.h"
#include "attngraph/summary.h"
#include "attngraph/features.h"
#include "attngraph/posenc.h"
#include "attngraph/table.h"
#include "attngraph/labels.h"
#include "attngraph/dataset.h"
#include "attngraph/split.h"
#include "attngraph/param.h"
#include "attngraph/rng.h"
#include "attngraph/readout.h"
#include "attngraph/loss.h"
#include "attngraph/metrics.h"
#include "attngraph/safetensors.h"
#include "attngraph/attention.h"
#include "attngraph/layers.h"
#include "attngraph/optim.h"
#include "attngraph/model.h"
#include "attngraph/train.h"
#include "attngraph/prepare.h"
#include "attngraph/modelfile.h"
#include "attngraph/api.h"

#endif
