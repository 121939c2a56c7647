package dev.richter.probe;

/**
 * An evidence source's answer that cannot be read (malformed body, an error status, a value that is no number); its
 * message names the field and the reason. The probe reports it as missing evidence, never against the module.
 */
public final class EvidenceAnswerException extends RuntimeException {
    /** @param reason the field and what is wrong with it, e.g. {@code "$.data.result: no series"} */
    public EvidenceAnswerException(String reason) {
        super(reason);
    }
}
