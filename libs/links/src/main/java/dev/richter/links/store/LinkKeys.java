package dev.richter.links.store;

import dev.richter.links.graph.Dimension;

/**
 * Key layout of the links table (pk/sk, GSI {@code reverse} on rpk/rsk). Team ids may contain
 * {@code #} (e.g. {@code teamA#marked}), so the team is length-prefixed to keep keys unambiguous.
 *
 * <pre>
 * closure row   pk = {dim}#{len}:{team}#{ancestor}      sk = {descendant}
 *               rpk = {dim}#{len}:{team}#{descendant}   rsk = {ancestor}
 * direct edge   pk = E#{dim}#{len}:{team}               sk = {len(from)}:{from}#{to}
 * entry         pk = N#{dim}#{len}:{team}               sk = {node}
 * annotation    pk = A#{len}:{team}                     sk = {subject}
 * datastore     pk = D#{len}:{team}                     sk = {DiscoveredDatastore#key()}
 * </pre>
 */
final class LinkKeys {
    private LinkKeys() {}

    static String scope(String teamId, Dimension dimension) {
        return dimension.wireName() + "#" + teamId.length() + ":" + teamId;
    }

    static String node(String teamId, Dimension dimension, String node) {
        return scope(teamId, dimension) + "#" + node;
    }

    static String edges(String teamId, Dimension dimension) {
        return "E#" + scope(teamId, dimension);
    }

    static String edgeSort(String from, String to) {
        return from.length() + ":" + from + "#" + to;
    }

    static String entries(String teamId, Dimension dimension) {
        return "N#" + scope(teamId, dimension);
    }

    static String datastores(String teamId) {
        return "D#" + teamId.length() + ":" + teamId;
    }

    static String middleware(String teamId) {
        return "W#" + teamId.length() + ":" + teamId;
    }

    static String annotations(String teamId) {
        return "A#" + teamId.length() + ":" + teamId;
    }
}
