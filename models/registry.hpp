// One shape for every set of named variants (GPUs, models, topologies, precisions, plans,
// ...): an explicit, ordered table of (name, value, one-line description). Lookups are by
// exact name; an unknown name gets the shared message with a did-you-mean and the valid
// names (models/names.hpp). Registries are immutable values built once, never self-registering.
#pragma once

#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "models/names.hpp"

namespace rentsim {

template <class T>
struct RegistryEntry {
    std::string_view name;
    T value;
    std::string_view description;
};

template <class T>
class Registry {
public:
    // `what` names a member in messages: "GPU", "pipeline schedule".
    Registry(std::string_view what, std::vector<RegistryEntry<T>> entries)
        : what_(what), entries_(std::move(entries)) {
        for (const auto& e : entries_) names_.push_back(e.name);
    }
    Registry(std::string_view what, std::initializer_list<RegistryEntry<T>> entries)
        : Registry(what, std::vector<RegistryEntry<T>>(entries)) {}

    std::string_view what() const { return what_; }
    std::span<const RegistryEntry<T>> entries() const { return entries_; }
    std::span<const std::string_view> names() const { return names_; }

    // nullptr when `name` is not registered.
    const T* find(std::string_view name) const {
        for (const auto& e : entries_)
            if (e.name == name) return &e.value;
        return nullptr;
    }
    // Throws std::invalid_argument with unknown_message(name) when `name` is not registered.
    const T& get(std::string_view name) const {
        if (const T* v = find(name)) return *v;
        throw std::invalid_argument(unknown_message(name));
    }
    std::string_view describe(std::string_view name) const {
        for (const auto& e : entries_)
            if (e.name == name) return e.description;
        return {};
    }
    // The registered name of a value (enums); empty when none matches.
    std::string_view name_of(const T& value) const {
        for (const auto& e : entries_)
            if (e.value == value) return e.name;
        return {};
    }
    // "unknown GPU 'h10'; did you mean 'h100-sxm5-80gb'? valid: ..."
    std::string unknown_message(std::string_view name) const { return unknown_name_message(what_, name, names_); }

private:
    std::string_view what_;
    std::vector<RegistryEntry<T>> entries_;
    std::vector<std::string_view> names_;
};

}  // namespace rentsim
