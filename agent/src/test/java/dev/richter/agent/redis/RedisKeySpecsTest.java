package dev.richter.agent.redis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Keys are located by each command's key specification (Redis's COMMAND INFO), never by their values. */
class RedisKeySpecsTest {
    private static List<byte[]> args(String... words) {
        List<byte[]> out = new ArrayList<>();
        for (String w : words) {
            out.add(w.getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    @Test
    void aValueEqualToAKeyIsNoKey() {
        List<byte[]> mset = args("MSET", "cart:5", "cart:6", "cart:6", "cart:6");
        int[] positions = RedisKeySpecs.positions("MSET", mset);
        assertArrayEquals(new int[] {1, 3}, positions);
        assertTrue(RedisKeySpecs.match(mset, positions, args("cart:5", "cart:6")));
        assertArrayEquals(new int[] {1}, RedisKeySpecs.positions("SET", args("SET", "k", "k")));
    }

    @Test
    void everyShapeOfKeySpecification() {
        assertArrayEquals(new int[] {1, 2, 3}, RedisKeySpecs.positions("DEL", args("DEL", "a", "b", "c")));
        assertArrayEquals(new int[] {1, 2}, RedisKeySpecs.positions("RENAME", args("RENAME", "a", "b")));
        assertArrayEquals(new int[] {1, 2}, RedisKeySpecs.positions("BLPOP", args("BLPOP", "a", "b", "0")));
        assertArrayEquals(new int[] {3, 4}, RedisKeySpecs.positions("EVAL", args("EVAL", "return 1", "2", "k1", "k2", "x")));
        assertArrayEquals(new int[] {1, 3, 4},
                RedisKeySpecs.positions("ZUNIONSTORE", args("ZUNIONSTORE", "dest", "2", "a", "b", "WEIGHTS", "1", "2")));
        assertArrayEquals(new int[] {2, 3}, RedisKeySpecs.positions("LMPOP", args("LMPOP", "2", "a", "b", "LEFT")));
    }

    @Test
    void aCommandWhoseKeysCannotBeLocatedHasNoPositions() {
        assertNull(RedisKeySpecs.positions("SORT", args("SORT", "a", "STORE", "b")), "not listed");
        assertNull(RedisKeySpecs.positions("EVAL", args("EVAL", "return 1", "two", "k")), "numkeys no number");
        assertNull(RedisKeySpecs.positions("EVAL", args("EVAL", "return 1", "3", "k")), "numkeys past the end");
        assertFalse(RedisKeySpecs.match(args("SET", "a", "b"), new int[] {1}, args("b")), "Jedis's keys disagree");
    }
}
