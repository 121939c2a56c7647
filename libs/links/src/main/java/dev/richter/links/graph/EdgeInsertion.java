package dev.richter.links.graph;

import java.util.List;

/**
 * What adding one edge changed.
 *
 * @param newEdge false when the edge already existed (only its call count and last-seen moved)
 * @param written rows inserted or updated, in write order (the direct edge's row included)
 * @param pairsInserted rows that did not exist before
 * @param pairsImproved rows whose depth got shorter
 */
public record EdgeInsertion(boolean newEdge, List<ClosurePair> written, int pairsInserted, int pairsImproved) {}
