package dev.richter.common.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * Which server certificates a TLS probe trusts: the JVM's system trust store (the {@code cacerts} of the
 * Lambda runtime) when a target gives no CA, or exactly the CA certificates in the target's
 * {@value #CA_PEM_FIELD} field. Built from the JDK only ({@link CertificateFactory}, {@link KeyStore},
 * {@link TrustManagerFactory} with the default PKIX algorithm); certificate path validation, expiry and
 * hostname verification are the JDK's (or, for gRPC, Netty's with this trust manager), never relaxed here.
 *
 * <p>A {@value #CA_PEM_FIELD} value is PEM text (RFC 7468): one or more
 * {@code -----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----} blocks, text between blocks ignored.
 * The certificates become trust anchors: usually the private CA that signed the server's certificate,
 * or the server's own self-signed certificate.
 */
public final class TlsTrust {
    /** JSON name of the CA field on {@code http}, {@code prometheus} and {@code grpc} targets. */
    public static final String CA_PEM_FIELD = "caPem";

    private static final Pattern PEM_BLOCK = Pattern.compile(
            "-----BEGIN CERTIFICATE-----(.*?)-----END CERTIFICATE-----", Pattern.DOTALL);

    private TlsTrust() {}

    /**
     * Reads the certificates of a {@value #CA_PEM_FIELD} value.
     *
     * @param caPem PEM text of one or more X.509 certificates
     * @return the certificates, in order (never empty)
     * @throws IllegalArgumentException naming the field, when the text holds no certificate, holds a private
     *                                  key, has an unterminated block, or a block that does not parse as X.509
     */
    public static List<X509Certificate> parseCaPem(String caPem) {
        String text = caPem == null ? "" : caPem;
        if (text.contains("PRIVATE KEY-----")) {
            throw invalid("holds a private key; it must hold only CA certificates");
        }
        int begins = count(text, "-----BEGIN CERTIFICATE-----");
        if (begins == 0) {
            throw invalid("no PEM certificate found (expected -----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----)"
                    + literalNewlineHint(text));
        }
        Matcher m = PEM_BLOCK.matcher(text);
        List<String> blocks = new ArrayList<>();
        while (m.find()) blocks.add(m.group());
        if (blocks.size() != begins || count(text, "-----END CERTIFICATE-----") != begins) {
            throw invalid("certificate " + (blocks.size() + 1) + " of " + begins + " has no matching -----END CERTIFICATE----- line");
        }
        CertificateFactory factory;
        try {
            factory = CertificateFactory.getInstance("X.509");
        } catch (CertificateException e) {
            throw new IllegalStateException("the JDK has no X.509 certificate factory", e);
        }
        List<X509Certificate> out = new ArrayList<>();
        for (int i = 0; i < blocks.size(); i++) {
            try {
                out.add((X509Certificate) factory.generateCertificate(
                        new ByteArrayInputStream(blocks.get(i).getBytes(StandardCharsets.US_ASCII))));
            } catch (CertificateException | RuntimeException e) {
                throw invalid("certificate " + (i + 1) + " of " + blocks.size() + " does not parse as X.509 ("
                        + e.getMessage() + ")" + literalNewlineHint(blocks.get(i)));
            }
        }
        return out;
    }

    /**
     * The trust manager for a target.
     *
     * @param caPem PEM CA certificates, or empty / {@code null} for the system trust store
     * @return a PKIX trust manager trusting exactly those CAs (or the system's)
     * @throws IllegalArgumentException naming {@value #CA_PEM_FIELD} when {@code caPem} is not valid (see {@link #parseCaPem})
     */
    public static X509TrustManager trustManager(String caPem) {
        try {
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            if (caPem == null || caPem.isBlank()) {
                tmf.init((KeyStore) null);
            } else {
                List<X509Certificate> cas = parseCaPem(caPem);
                KeyStore anchors = KeyStore.getInstance(KeyStore.getDefaultType());
                anchors.load(null, null);
                for (int i = 0; i < cas.size(); i++) {
                    anchors.setCertificateEntry("ca-" + i, cas.get(i));
                }
                tmf.init(anchors);
            }
            for (TrustManager tm : tmf.getTrustManagers()) {
                if (tm instanceof X509TrustManager x) return x;
            }
            throw new IllegalStateException("the JDK's " + tmf.getAlgorithm() + " factory gave no X509TrustManager: "
                    + Arrays.toString(tmf.getTrustManagers()));
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot build a trust manager: " + e.getMessage(), e);
        }
    }

    /**
     * A TLS client context for the JDK {@code HttpClient}: no client certificate, {@link #trustManager(String)}.
     *
     * @throws IllegalArgumentException naming {@value #CA_PEM_FIELD} when {@code caPem} is not valid
     */
    public static SSLContext sslContext(String caPem) {
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, new TrustManager[] {trustManager(caPem)}, null);
            return ctx;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot build a TLS context: " + e.getMessage(), e);
        }
    }

    private static IllegalArgumentException invalid(String reason) {
        return new IllegalArgumentException(CA_PEM_FIELD + ": " + reason);
    }

    /** A PEM pasted into JSON with {@code \\n} escaped twice arrives with literal backslash-n sequences. */
    private static String literalNewlineHint(String text) {
        return text.contains("\\n") ? "; the text holds a literal '\\n': in JSON write line breaks as \\n, once escaped" : "";
    }

    private static int count(String text, String needle) {
        int n = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length())) n++;
        return n;
    }
}
