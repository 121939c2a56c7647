#!/usr/bin/env bash
# ./richter stack --localstack: deploy template.yaml to a running LocalStack and run the demo's main job against it.
#
# Needs: LocalStack answering on $LOCALSTACK_ENDPOINT (default http://localhost:4566; the HTTP API v2 and its JWT
# authorizer are LocalStack Pro services), samlocal and awslocal (pip install aws-sam-cli-local awscli-local), JDK 21+,
# Maven. LocalStack's functions reach this machine as $RICHTER_HOST_FROM_LOCALSTACK (default host.docker.internal):
# the OIDC discovery server (port 4599) and the demo shop (ports 18081-18083) listen for them there.
# Not run by ./richter test: the build machines have no Docker.
set -euo pipefail
cd "$(dirname "$0")/.."
export RICHTER_HOME="$PWD"
LOCALSTACK="${LOCALSTACK_ENDPOINT:-http://localhost:4566}"
HOST="${RICHTER_HOST_FROM_LOCALSTACK:-host.docker.internal}"
STACK=richter-localstack
ISSUER="http://$HOST:4599"

if ! curl -fsS -m 5 "$LOCALSTACK/_localstack/health" >/dev/null 2>&1; then
  cat >&2 <<MSG
no LocalStack answers on $LOCALSTACK.
Start it first, e.g.  localstack start -d   (or: docker run -d -p 4566:4566 -e LOCALSTACK_AUTH_TOKEN=... localstack/localstack-pro),
or point LOCALSTACK_ENDPOINT at it. Without Docker, use Richter's own local stack: ./richter stack (or ./richter demo).
MSG
  exit 1
fi
for tool in samlocal awslocal curl; do
  if ! command -v "$tool" >/dev/null; then
    echo "$tool is not installed: pip install aws-sam-cli-local awscli-local (and curl)" >&2
    exit 1
  fi
done

echo "building Richter and the Lambda jars (mvn -Plambda install -DskipTests)..."
mvn -B -q -Dstyle.color=never -Plambda install -DskipTests
rm -rf build/local/lib && mkdir -p build/local/lib
mvn -B -q -Dstyle.color=never -pl local dependency:copy-dependencies -DoutputDirectory="$PWD/build/local/lib" -DincludeScope=runtime
cp local/target/local-stack-*.jar build/local/lib/
CP="build/local/lib/*"

# LocalStack's JWT authorizer fetches the issuer's discovery document and keys: serve the local identity provider's
java -cp "$CP" dev.richter.local.OidcDiscoveryServer --port 4599 --issuer "$ISSUER" &
OIDC_PID=$!
trap 'kill $OIDC_PID 2>/dev/null || true' EXIT

echo "deploying template.yaml to LocalStack as stack $STACK (issuer $ISSUER)..."
samlocal deploy --template-file template.yaml --stack-name "$STACK" --resolve-s3 --capabilities CAPABILITY_IAM \
  --no-confirm-changeset --no-fail-on-empty-changeset \
  --parameter-overrides StageName=local "OidcIssuer=$ISSUER" OidcAudience=richter-local

API_ID=$(awslocal apigatewayv2 get-apis --query "Items[?Name=='$STACK'].ApiId | [0]" --output text)
if [ -z "$API_ID" ] || [ "$API_ID" = "None" ]; then
  API_ID=$(awslocal apigatewayv2 get-apis --query "Items[0].ApiId" --output text)
fi
API_URL="http://$API_ID.execute-api.localhost.localstack.cloud:${LOCALSTACK##*:}/local"
echo "HTTP API: $API_URL"

TOKEN=$(java -cp "$CP" dev.richter.local.TokenMain --team shop-team --sub demo@shop-team --issuer "$ISSUER")
RICHTER_TOKEN="$TOKEN" RICHTER_SHOP_HOST="$HOST" java -cp "$CP" dev.richter.local.Demo --remote-api "$API_URL"
