package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.platform.suite.api.ExcludeClassNamePatterns;
import org.junit.platform.suite.api.SelectClasses;

/**
 * Every {@code *IT} class of this module runs exactly once in a failsafe run (local/pom.xml): in
 * {@link ShopITSuite}, in {@link StackITSuite}, or as {@link LeastPrivilegeIT} after both.
 */
class ItSuitesTest {
    @Test
    void everyItIsInExactlyOneSuite() throws Exception {
        Path dir = LocalAwsStack.rootFromEnv().resolve("local/src/test/java/dev/richter/local");
        Set<String> its = new TreeSet<>();
        try (var files = Files.list(dir)) {
            files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith("IT.java"))
                    .forEach(n -> its.add("dev.richter.local." + n.substring(0, n.length() - ".java".length())));
        }
        List<String> shop = Arrays.stream(ShopITSuite.class.getAnnotation(SelectClasses.class).value())
                .map(Class::getName).toList();
        String[] excluded = StackITSuite.class.getAnnotation(ExcludeClassNamePatterns.class).value();
        List<String> placed = new ArrayList<>();
        for (String it : its) {
            boolean inStack = Arrays.stream(excluded).noneMatch(it::matches);
            int times = (shop.contains(it) ? 1 : 0) + (inStack ? 1 : 0) + (it.endsWith(".LeastPrivilegeIT") ? 1 : 0);
            assertEquals(1, times, it + " runs " + times + " times");
            placed.add(it);
        }
        assertEquals(its.size(), placed.size());
        assertEquals(true, its.containsAll(shop), "every class of ShopITSuite is an IT of this module: " + shop);
    }
}
