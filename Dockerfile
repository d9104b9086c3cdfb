# One image, one binary: `badged serve`, `badged worker`, `badged migrate` are chosen by the command.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/badged ./cmd/badged

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/badged /usr/local/bin/badged
ENV HTTP_ADDR=:8080 DATA_DIR=/data
EXPOSE 8080
USER nonroot
ENTRYPOINT ["/usr/local/bin/badged"]
CMD ["serve"]
