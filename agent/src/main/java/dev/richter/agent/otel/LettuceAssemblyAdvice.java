package dev.richter.agent.otel;

import dev.richter.agent.lettuce.LettuceExits;
import java.util.function.Supplier;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into Lettuce's {@code AbstractRedisReactiveCommands.createMono(Supplier)} and {@code createFlux(Supplier,
 * boolean)}, which every reactive command goes through on the application's call: in a marked context, the commands
 * the returned {@code Mono} or {@code Flux} will send at subscription are tagged as marked ({@code
 * LettuceExits.atAssembly}). Names only the helper and JDK types.
 */
@SuppressWarnings({"unused", "rawtypes", "unchecked"})
public final class LettuceAssemblyAdvice {
    private LettuceAssemblyAdvice() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static void enter(@Advice.Argument(value = 0, readOnly = false) Supplier commands) {
        commands = LettuceExits.atAssembly(commands);
    }
}
