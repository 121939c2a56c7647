package dev.richter.agent.it;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.support.ClassicRequestBuilder;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * {@link IsolationTestApp}'s calls with the HTTP clients besides the JDK's, as a service makes them (no Richter code):
 * OkHttp 5 ({@code execute()}, or {@code enqueue(callback)} when async), Apache HttpClient 5's classic client ({@code
 * execute(request, handler)}, or {@code executeOpen} when async) and Spring's {@code RestClient} over that client;
 * the reactive and asynchronous ones are {@link ReactiveClients}'. POST sends {@code {"amount":1}}.
 */
final class OtherClients {
    private static final String BODY = "{\"amount\":1}";
    private static final OkHttpClient OKHTTP = new OkHttpClient.Builder().callTimeout(Duration.ofSeconds(5)).build();
    private static final CloseableHttpClient APACHE = HttpClients.createDefault();
    private static final org.apache.http.impl.client.CloseableHttpClient APACHE4 =
            org.apache.http.impl.client.HttpClients.custom().disableAutomaticRetries().build();
    private static final RestClient SPRING = RestClient.builder()
            .requestFactory(new HttpComponentsClientHttpRequestFactory(APACHE)).build();

    private OtherClients() {}

    /** {@code status=<code> body=<body>}, or {@code error=<the exception's message>}. */
    static String call(String client, String target, String method, boolean async) {
        try {
            return switch (client) {
                case "okhttp" -> okhttp(target, method, async);
                case "apache" -> apache(target, method, async);
                case "spring" -> spring(target, method);
                case "urlconnection" -> urlConnection(target, method);
                case "resttemplate" -> restTemplate(target, method);
                case "apache4" -> apache4(target, method);
                case "socket" -> socket(target);
                case "channel" -> channel(target);
                case "reactor-netty", "webclient", "apache-async" -> ReactiveClients.call(client, target, method, async);
                default -> "error=no client " + client;
            };
        } catch (IOException | RuntimeException e) {
            return "error=" + e.getMessage();
        } catch (ExecutionException e) {
            return "error=" + e.getCause().getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "error=interrupted";
        } catch (Exception e) {
            return "error=" + e;
        }
    }

    private static String okhttp(String target, String method, boolean async) throws Exception {
        Request request = new Request.Builder().url(target)
                .method(method, method.equals("GET") ? null : RequestBody.create(BODY, okhttp3.MediaType.get("application/json")))
                .build();
        if (!async) {
            try (Response response = OKHTTP.newCall(request).execute()) {
                return "status=" + response.code() + " body=" + response.body().string();
            }
        }
        CompletableFuture<String> answer = new CompletableFuture<>();
        OKHTTP.newCall(request).enqueue(new Callback() {
            @Override
            public void onFailure(Call call, IOException e) {
                answer.completeExceptionally(e);
            }

            @Override
            public void onResponse(Call call, Response response) throws IOException {
                try (response) {
                    answer.complete("status=" + response.code() + " body=" + response.body().string());
                }
            }
        });
        return answer.get(10, TimeUnit.SECONDS);
    }

    private static String apache(String target, String method, boolean async) throws Exception {
        ClassicRequestBuilder builder = ClassicRequestBuilder.create(method).setUri(target);
        if (!method.equals("GET")) {
            builder.setEntity(BODY, ContentType.APPLICATION_JSON);
        }
        ClassicHttpRequest request = builder.build();
        if (!async) {
            return APACHE.execute(request, r -> "status=" + r.getCode() + " body=" + EntityUtils.toString(r.getEntity()));
        }
        try (ClassicHttpResponse response = APACHE.executeOpen(null, request, null)) {
            return "status=" + response.getCode() + " body=" + EntityUtils.toString(response.getEntity());
        }
    }

    /** The JDK's {@code HttpURLConnection}, as a service without an HTTP library calls. */
    private static String urlConnection(String target, String method) throws IOException {
        java.net.HttpURLConnection c = (java.net.HttpURLConnection) java.net.URI.create(target).toURL().openConnection();
        c.setRequestMethod(method);
        c.setConnectTimeout(5_000);
        c.setReadTimeout(5_000);
        if (!method.equals("GET")) {
            c.setDoOutput(true);
            c.setRequestProperty("Content-Type", "application/json");
            try (java.io.OutputStream out = c.getOutputStream()) {
                out.write(BODY.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
        }
        int code = c.getResponseCode();
        try (java.io.InputStream in = code < 400 ? c.getInputStream() : c.getErrorStream()) {
            return "status=" + code + " body=" + new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    /** Spring's {@code RestTemplate} with its default request factory: the JDK's {@code HttpURLConnection}. */
    private static String restTemplate(String target, String method) {
        org.springframework.web.client.RestTemplate template = new org.springframework.web.client.RestTemplate();
        org.springframework.http.HttpHeaders headers = new org.springframework.http.HttpHeaders();
        headers.setContentType(org.springframework.http.MediaType.APPLICATION_JSON);
        ResponseEntity<String> response = template.exchange(target, HttpMethod.valueOf(method),
                new org.springframework.http.HttpEntity<>(method.equals("GET") ? null : BODY, headers), String.class);
        return "status=" + response.getStatusCode().value() + " body=" + response.getBody();
    }

    /** Apache HttpClient 4.5 (pooled, keep-alive): a client Richter does not guard; only the network catch-all does. */
    private static String apache4(String target, String method) throws IOException {
        org.apache.http.client.methods.HttpRequestBase request = method.equals("GET")
                ? new org.apache.http.client.methods.HttpGet(target) : new org.apache.http.client.methods.HttpPost(target);
        if (request instanceof org.apache.http.client.methods.HttpPost post) {
            post.setEntity(new org.apache.http.entity.StringEntity(BODY, org.apache.http.entity.ContentType.APPLICATION_JSON));
        }
        try (org.apache.http.client.methods.CloseableHttpResponse response = APACHE4.execute(request)) {
            return "status=" + response.getStatusLine().getStatusCode() + " body="
                    + org.apache.http.util.EntityUtils.toString(response.getEntity());
        }
    }

    /** A plain {@code java.net.Socket} speaking HTTP/1.0: a GET as a hand-written client would send it. */
    private static String socket(String target) throws IOException {
        java.net.URI uri = java.net.URI.create(target);
        try (java.net.Socket s = new java.net.Socket()) {
            s.connect(new java.net.InetSocketAddress(uri.getHost(), uri.getPort()), 5_000);
            s.setSoTimeout(5_000);
            s.getOutputStream().write(("GET " + uri.getRawPath() + " HTTP/1.0\r\nHost: " + uri.getHost() + "\r\n\r\n")
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            return answer(new String(s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    /** A blocking NIO {@code SocketChannel} speaking HTTP/1.0. */
    private static String channel(String target) throws IOException {
        java.net.URI uri = java.net.URI.create(target);
        try (java.nio.channels.SocketChannel c = java.nio.channels.SocketChannel.open()) {
            c.connect(new java.net.InetSocketAddress(uri.getHost(), uri.getPort()));
            c.write(java.nio.ByteBuffer.wrap(("GET " + uri.getRawPath() + " HTTP/1.0\r\nHost: " + uri.getHost()
                    + "\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
            java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
            java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(4096);
            while (c.read(buffer) >= 0) {
                all.write(buffer.array(), 0, buffer.position());
                buffer.clear();
            }
            return answer(all.toString(java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    /** {@code status=<code> body=<body>} of a raw HTTP/1.x answer. */
    private static String answer(String raw) {
        int end = raw.indexOf("\r\n\r\n");
        return "status=" + raw.substring(raw.indexOf(' ') + 1, raw.indexOf(' ') + 4) + " body=" + raw.substring(end + 4);
    }

    private static String spring(String target, String method) {
        RestClient.RequestBodySpec request = SPRING.method(HttpMethod.valueOf(method)).uri(target);
        if (!method.equals("GET")) {
            request.contentType(org.springframework.http.MediaType.APPLICATION_JSON).body(BODY);
        }
        ResponseEntity<String> response = request.retrieve().toEntity(String.class);
        return "status=" + response.getStatusCode().value() + " body=" + response.getBody();
    }
}
