package dev.richter.common.model;

import java.util.List;

/**
 * The usable rows of a data set.
 *
 * @param columns column names
 * @param indexes each row's index in the data set (what {@code unique} partitions by)
 * @param rows    each row's values as text, one per column
 */
public record DataSetRows(List<String> columns, List<Integer> indexes, List<List<String>> rows) {}
