// libuv stdio streams with a file fallback.
#include "lsp/Transport.h"

#include <cerrno>
#include <unistd.h>
#include <vector>

namespace engram {

namespace {

// One allocation type for every stream kind so that it is freed as what it
// was allocated as.
union AnyStream {
    uv_handle_t handle;
    uv_stream_t stream;
    uv_pipe_t pipe;
    uv_tty_t tty;
    uv_tcp_t tcp;
};

void closeAndFree(AnyStream* s) {
    if (!uv_is_closing(&s->handle))
        uv_close(&s->handle, [](uv_handle_t* h) { delete reinterpret_cast<AnyStream*>(h); });
}

// A stream handle owned by the transport: uv_close, then free in the close
// callback (libuv may touch the memory until then).
struct OwnedStream {
    AnyStream* s = nullptr;
    uv_stream_t* get() const { return s ? &s->stream : nullptr; }
    void reset() {
        if (s) closeAndFree(s);
        s = nullptr;
    }
    ~OwnedStream() { reset(); }
};

struct WriteReq {
    uv_write_t req;
    std::string data;
};

} // namespace

struct StdioTransport::Impl {
    uv_loop_t* loop;
    OnFrame onFrame;
    OnEof onEof;
    protocol::FrameDecoder decoder;

    OwnedStream in; // pipe, tty or tcp
    OwnedStream out;
    bool inIsFile = false;
    bool outIsFile = false;
    bool closed = false;
    uv_fs_t fsReq{};
    std::vector<char> fileBuf = std::vector<char>(65536);
    int64_t fileOffset = 0;
    bool fileReadPending = false;

    void deliver(const char* data, size_t n) {
        std::vector<protocol::FrameEvent> events;
        decoder.feed(std::string_view(data, n), events);
        for (auto& e : events) {
            if (closed) return;
            onFrame(std::move(e));
        }
    }

    void readFile() {
        fileReadPending = true;
        uv_buf_t buf = uv_buf_init(fileBuf.data(), unsigned(fileBuf.size()));
        fsReq.data = this;
        uv_fs_read(loop, &fsReq, 0, &buf, 1, -1, [](uv_fs_t* req) {
            auto* self = static_cast<Impl*>(req->data);
            ssize_t n = req->result;
            uv_fs_req_cleanup(req);
            self->fileReadPending = false;
            if (self->closed) return;
            if (n <= 0) {
                self->onEof();
                return;
            }
            self->deliver(self->fileBuf.data(), size_t(n));
            if (!self->closed) self->readFile();
        });
    }
};

static AnyStream* openStream(uv_loop_t* loop, int fd, bool readable, bool& isFile) {
    isFile = false;
    auto* s = new AnyStream;
    switch (uv_guess_handle(fd)) {
    case UV_TTY:
        uv_tty_init(loop, &s->tty, fd, readable ? 1 : 0);
        return s;
    case UV_NAMED_PIPE:
        uv_pipe_init(loop, &s->pipe, 0);
        uv_pipe_open(&s->pipe, fd);
        return s;
    case UV_TCP:
        uv_tcp_init(loop, &s->tcp);
        uv_tcp_open(&s->tcp, fd);
        return s;
    default:
        delete s;
        isFile = true;
        return nullptr;
    }
}

StdioTransport::StdioTransport(uv_loop_t* loop, OnFrame onFrame, OnEof onEof)
    : impl_(new Impl{loop, std::move(onFrame), std::move(onEof), {}, {}, {}}) {}

StdioTransport::~StdioTransport() {
    close();
}

void StdioTransport::start() {
    Impl& s = *impl_;
    s.in.s = openStream(s.loop, 0, true, s.inIsFile);
    s.out.s = openStream(s.loop, 1, false, s.outIsFile);
    if (s.inIsFile) {
        s.readFile();
        return;
    }
    s.in.get()->data = &s;
    uv_read_start(
        s.in.get(),
        [](uv_handle_t*, size_t, uv_buf_t* buf) {
            static char storage[65536];
            *buf = uv_buf_init(storage, sizeof storage);
        },
        [](uv_stream_t* stream, ssize_t n, const uv_buf_t* buf) {
            auto* self = static_cast<Impl*>(stream->data);
            if (n > 0) {
                self->deliver(buf->base, size_t(n));
            } else if (n < 0) {
                uv_read_stop(stream);
                if (!self->closed) self->onEof();
            }
        });
}

void StdioTransport::send(const std::string& body) {
    Impl& s = *impl_;
    std::string frame = protocol::encodeFrame(body);
    if (s.outIsFile || !s.out.s) {
        std::string_view rest = frame;
        while (!rest.empty()) {
            ssize_t n = ::write(1, rest.data(), rest.size());
            if (n < 0) {
                if (errno == EINTR) continue;
                return; // the client went away; nothing left to tell it
            }
            rest.remove_prefix(size_t(n));
        }
        return;
    }
    auto* w = new WriteReq;
    w->data = std::move(frame);
    uv_buf_t buf = uv_buf_init(w->data.data(), unsigned(w->data.size()));
    int rc = uv_write(&w->req, s.out.get(), &buf, 1,
                      [](uv_write_t* req, int) { delete reinterpret_cast<WriteReq*>(req); });
    if (rc != 0) delete w;
}

void StdioTransport::close() {
    Impl& s = *impl_;
    if (s.closed) return;
    s.closed = true;
    if (s.in.s) uv_read_stop(s.in.get());
    s.in.reset();
    // uv_close on a stream cancels its queued writes; a shutdown request
    // completes after them, so the last replies reach the client.
    if (AnyStream* out = s.out.s) {
        s.out.s = nullptr;
        auto* req = new uv_shutdown_t;
        req->data = out;
        if (uv_shutdown(req, &out->stream, [](uv_shutdown_t* r, int) {
                closeAndFree(static_cast<AnyStream*>(r->data));
                delete r;
            }) != 0) {
            delete req;
            closeAndFree(out);
        }
    }
}

} // namespace engram
