package dev.richter.runs;

/**
 * One problem found in a document: where and why.
 *
 * @param path   the JSON path of the field, e.g. {@code $.formal.steps[1].qps} ({@code $} for the whole document)
 * @param reason what is wrong there, in the words of the rule it breaks, e.g. {@code service 'pay' is not registered
 *               by team 't1'}
 */
public record InputProblem(String path, String reason) {}
