/*
 * attngraph.h: the umbrella header of attn-graph, graph self-attention networks in C on igraph.
 */
#ifndef ATTNGRAPH_H
#define ATTNGRAPH_H

#include "attngraph/common.h"
#include "attngraph/matrix.h"
#include "attngraph/graph.h"
#include "attngraph/summary.h"

#endif
