package dev.richter.probe;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throw-away PKI for the TLS tests, made at test time: a CA (EC P-256, self-signed) that issues server
 * certificates for the names given (IP literals become IP SANs, the rest DNS SANs). BouncyCastle only
 * builds and signs the certificates; the JDK's providers do the keys and the signatures.
 */
final class TestPki {
    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());
    private static final char[] PASSWORD = "test".toCharArray();

    /** A certificate authority. */
    record Ca(X509Certificate cert, KeyPair keys) {
        /** The CA certificate as PEM, as a target's {@code caPem} holds it. */
        String pem() {
            return TestPki.pem(cert);
        }

        /** A server certificate (serverAuth) for {@code names}, valid for a day. */
        Server issueServer(String... names) throws Exception {
            KeyPair kp = ecKeyPair();
            GeneralName[] sans = Arrays.stream(names)
                    .map(n -> new GeneralName(n.matches("[0-9.]+|.*:.*") ? GeneralName.iPAddress : GeneralName.dNSName, n))
                    .toArray(GeneralName[]::new);
            X509v3CertificateBuilder b = builder(X500Name.getInstance(cert.getSubjectX500Principal().getEncoded()),
                    new X500Name("CN=" + names[0]), kp)
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
                    .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(sans));
            return new Server(sign(b, keys), kp, this);
        }
    }

    /** A server's certificate and key, with the CA that issued it. */
    record Server(X509Certificate cert, KeyPair keys, Ca ca) {
        /** Key managers presenting the chain (server certificate, CA). */
        KeyManager[] keyManagers() throws Exception {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            ks.setKeyEntry("server", keys.getPrivate(), PASSWORD, new Certificate[] {cert, ca.cert()});
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, PASSWORD);
            return kmf.getKeyManagers();
        }

        /** A server-side TLS context (for the JDK {@code HttpsServer}). */
        SSLContext serverContext() throws Exception {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(keyManagers(), null, null);
            return ctx;
        }
    }

    private TestPki() {}

    /** A new self-signed CA named {@code cn}, valid for a day. */
    static Ca newCa(String cn) throws Exception {
        KeyPair kp = ecKeyPair();
        X500Name name = new X500Name("CN=" + cn);
        X509v3CertificateBuilder b = builder(name, name, kp)
                .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        return new Ca(sign(b, kp), kp);
    }

    /** PEM (RFC 7468) of the certificates, one block each. */
    static String pem(X509Certificate... certs) {
        StringBuilder sb = new StringBuilder();
        for (X509Certificate c : certs) {
            try {
                sb.append("-----BEGIN CERTIFICATE-----\n")
                        .append(Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(c.getEncoded()))
                        .append("\n-----END CERTIFICATE-----\n");
            } catch (java.security.cert.CertificateEncodingException e) {
                throw new IllegalStateException(e);
            }
        }
        return sb.toString();
    }

    private static KeyPair ecKeyPair() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        return g.generateKeyPair();
    }

    private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair subjectKeys) {
        Instant now = Instant.now();
        return new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(SERIAL.incrementAndGet()),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(1))),
                subject, subjectKeys.getPublic());
    }

    private static X509Certificate sign(X509v3CertificateBuilder b, KeyPair issuerKeys) throws Exception {
        return new JcaX509CertificateConverter().getCertificate(
                b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKeys.getPrivate())));
    }
}
