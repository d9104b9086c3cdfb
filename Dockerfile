# One image, one binary: `badged serve`, `badged worker`, `badged migrate` are chosen by the command.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
COPY client/v3/go.mod client/v3/go.sum ./client/v3/
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -tags production -trimpath -ldflags="-s -w" -o /out/badged ./cmd/badged
# DATA_DIR must exist and belong to nonroot: the worker creates its outbox there, and a named volume mounted on
# /data takes this ownership (a missing mount point would be created root-owned and unwritable).
RUN mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/badged /usr/local/bin/badged
COPY --from=build --chown=65532:65532 /out/data /data
ENV HTTP_ADDR=:8080 DATA_DIR=/data
EXPOSE 8080
USER nonroot
ENTRYPOINT ["/usr/local/bin/badged"]
CMD ["serve"]
