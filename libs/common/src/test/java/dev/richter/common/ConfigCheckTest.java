package dev.richter.common;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

/** The messages of {@link ConfigCheck}: field, rule, value; whole doubles without ".0"; NaN fails every rule. */
class ConfigCheckTest {
    @Test
    void aRefusalNamesTheFieldTheRuleAndTheValue() {
        assertEquals("n must be >= 1, was 0", refusal(() -> ConfigCheck.atLeast("n", 0L, 1L)));
        assertEquals("x must be >= 0, was -0.5", refusal(() -> ConfigCheck.atLeast("x", -0.5, 0)));
        assertEquals("x must be >= 0, was NaN", refusal(() -> ConfigCheck.atLeast("x", Double.NaN, 0)));
        assertEquals("s must be in [1, 900], was 901", refusal(() -> ConfigCheck.between("s", 901L, 1L, 900L)));
        assertEquals("r must be in [0, 1], was 1.5", refusal(() -> ConfigCheck.between("r", 1.5, 0, 1)));
        assertEquals("r must be in [0, 1], was NaN", refusal(() -> ConfigCheck.between("r", Double.NaN, 0, 1)));
        assertEquals("f must be in (0, 1], was 0", refusal(() -> ConfigCheck.positiveFraction("f", 0)));
        assertEquals("f must be in (0, 1], was 2", refusal(() -> ConfigCheck.positiveFraction("f", 2.0)));
        assertEquals("w must be >= minSamples (5), was 4", refusal(() -> ConfigCheck.require(false, "w", ">= minSamples (5)", 4)));
    }

    @Test
    void valuesOnTheBoundsPass() {
        assertDoesNotThrow(() -> {
            ConfigCheck.atLeast("n", 1L, 1L);
            ConfigCheck.atLeast("x", 0.0, 0);
            ConfigCheck.atLeast("x", Double.POSITIVE_INFINITY, 0);
            ConfigCheck.between("s", 900L, 1L, 900L);
            ConfigCheck.between("r", 0.0, 0, 1);
            ConfigCheck.positiveFraction("f", 1.0);
            ConfigCheck.positiveFraction("f", Double.MIN_VALUE);
        });
    }

    private static String refusal(Runnable check) {
        return assertThrows(IllegalArgumentException.class, check::run).getMessage();
    }
}
