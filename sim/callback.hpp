// Callback: a move-only, type-erased `void()` callable stored inline, so that scheduling
// an event never touches the heap. The callable must fit in `Callback::capacity` bytes,
// be no more aligned than std::max_align_t and be nothrow-movable; a larger capture fails
// to compile with a static_assert (capture a pointer to the state instead).
#pragma once

#include <cassert>
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace rentsim::sim {

class Callback {
public:
    static constexpr std::size_t capacity = 48;
    static constexpr std::size_t alignment = alignof(std::max_align_t);

    // True when a callable of type F can be stored; lets tests and callers check ahead.
    template <class F>
    static constexpr bool fits = sizeof(std::decay_t<F>) <= capacity &&
                                 alignof(std::decay_t<F>) <= alignment &&
                                 std::is_nothrow_move_constructible_v<std::decay_t<F>>;

    Callback() noexcept = default;

    // Implicit on purpose: `engine.schedule_in(dt, [this] { ... })` reads best.
    template <class F>
        requires(!std::is_same_v<std::remove_cvref_t<F>, Callback> &&
                 std::is_invocable_r_v<void, std::decay_t<F>&>)
    Callback(F&& f) {  // NOLINT(google-explicit-constructor)
        using D = std::decay_t<F>;
        static_assert(sizeof(D) <= capacity,
                      "Callback: the captures exceed Callback::capacity bytes; capture a pointer "
                      "to the state instead");
        static_assert(alignof(D) <= alignment, "Callback: the callable is over-aligned");
        static_assert(std::is_nothrow_move_constructible_v<D>,
                      "Callback: the callable must be nothrow move constructible");
        ::new (static_cast<void*>(storage_)) D(std::forward<F>(f));
        ops_ = &ops_for<D>;
    }

    Callback(Callback&& other) noexcept { take(other); }
    Callback& operator=(Callback&& other) noexcept {
        if (this != &other) {
            reset();
            take(other);
        }
        return *this;
    }
    Callback(const Callback&) = delete;
    Callback& operator=(const Callback&) = delete;
    ~Callback() { reset(); }

    // Precondition: not empty.
    void operator()() {
        assert(ops_ != nullptr);
        ops_->invoke(storage_);
    }
    explicit operator bool() const noexcept { return ops_ != nullptr; }

    // Destroys the stored callable, leaving the Callback empty.
    void reset() noexcept {
        if (ops_ != nullptr) {
            ops_->destroy(storage_);
            ops_ = nullptr;
        }
    }

private:
    struct Ops {
        void (*invoke)(void*);
        void (*relocate)(void* dst, void* src) noexcept;  // move-construct into dst, destroy src
        void (*destroy)(void*) noexcept;
    };

    template <class D>
    static void invoke_fn(void* p) {
        (*static_cast<D*>(p))();
    }
    template <class D>
    static void relocate_fn(void* dst, void* src) noexcept {
        D* s = static_cast<D*>(src);
        ::new (dst) D(std::move(*s));
        s->~D();
    }
    template <class D>
    static void destroy_fn(void* p) noexcept {
        static_cast<D*>(p)->~D();
    }
    // One immutable table per stored type; constant data, not mutable state.
    template <class D>
    static constexpr Ops ops_for{&invoke_fn<D>, &relocate_fn<D>, &destroy_fn<D>};

    void take(Callback& other) noexcept {
        if (other.ops_ != nullptr) {
            other.ops_->relocate(storage_, other.storage_);
            ops_ = std::exchange(other.ops_, nullptr);
        }
    }

    alignas(alignment) std::byte storage_[capacity];
    const Ops* ops_ = nullptr;
};

}  // namespace rentsim::sim
