package dev.richter.checks.safety;

import dev.richter.links.Exit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The exits annotated "mock required", shared by the static (mock present) and dynamic (mocked exits) checks. */
final class MockRequiredExits {
    private MockRequiredExits() {}

    /**
     * @param exits the scope's exits (e.g. {@code LinkService.exits})
     * @return the mock-required ones by node ({@code toNode}, or {@code toService} when the exit has no
     *     interface node), first occurrence kept, in input order
     */
    static Map<String, Exit> byNode(List<Exit> exits) {
        Map<String, Exit> required = new LinkedHashMap<>();
        for (Exit e : exits) {
            if (e.mockRequired()) {
                required.putIfAbsent(e.toNode().isEmpty() ? e.toService() : e.toNode(), e);
            }
        }
        return required;
    }
}
