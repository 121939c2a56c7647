package dev.richter.common;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class TaskErrorsTest {
    @Test
    void aFunctionErrorsCauseIsItsErrorMessage() {
        assertEquals("boom", TaskErrors.causeMessage("{\"errorType\":\"java.lang.IllegalStateException\","
                + "\"errorMessage\":\"boom\",\"stackTrace\":[]}"));
        assertEquals("Rate Exceeded. ReservedFunctionConcurrentInvocationLimitExceeded",
                TaskErrors.causeMessage("{\"Type\":\"User\",\"message\":\"Rate Exceeded.\","
                        + "\"Reason\":\"ReservedFunctionConcurrentInvocationLimitExceeded\"}"));
        assertEquals("the task timed out", TaskErrors.causeMessage("  the task timed out \n"));
        assertEquals("", TaskErrors.causeMessage(null));
    }

    @Test
    void aReasonQuotesAtMost200CharactersOfTheCause() {
        assertEquals("", TaskErrors.causeSuffix(null));
        assertEquals("", TaskErrors.causeSuffix("{\"errorMessage\":\"  \"}"));
        assertEquals(" (boom)", TaskErrors.causeSuffix("{\"errorMessage\":\"boom\"}"));
        String exact = "x".repeat(TaskErrors.MAX_CAUSE_CHARS);
        assertEquals(" (" + exact + ")", TaskErrors.causeSuffix(exact));
        assertEquals(" (" + exact + "…)", TaskErrors.causeSuffix(exact + "yz"));
    }
}
