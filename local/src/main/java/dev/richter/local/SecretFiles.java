package dev.richter.local;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.UUID;

/** The local stack's key files: written once, readable by their owner only. */
final class SecretFiles {
    private SecretFiles() {}

    /**
     * Writes {@code content} to {@code file} unless it exists: through a temporary file in the same directory, made
     * owner-only ({@code rw-------}) where the file system has POSIX permissions, then moved into place without
     * replacing, so of two creators racing the first one's file wins and the other's is discarded.
     *
     * @throws IOException when the directory cannot be written
     */
    static void createOnce(Path file, String content) throws IOException {
        if (Files.exists(file)) {
            return;
        }
        Path tmp = file.resolveSibling(file.getFileName() + "." + UUID.randomUUID() + ".tmp");
        Files.writeString(tmp, content);
        try {
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException notPosix) {
            // a file system without POSIX permissions: the file stays readable as the directory allows
        }
        try {
            Files.move(tmp, file);   // refuses to replace: a concurrent creator's file wins
        } catch (FileAlreadyExistsException raced) {
            Files.deleteIfExists(tmp);
        }
    }
}
