// SPDX-License-Identifier: MIT
/// \file query.hpp
/// Queries: the four query kinds (`query::point`, `query::row_range`,
/// `query::partition_range`, `query::table_scan`), the filter builder
/// (`filter`), key ranges (`key_range`), and the pager that follows
/// continuations (`pager<T>`: range-for, page by page, resumable tokens).
///
/// Queries run through `table_client::query<T>(q)`: `T` = `aztables::entity`
/// (the default) reads dynamic entities with their exact Edm types
/// (odata=minimalmetadata); a mapped struct reads straight into `T`, selecting
/// only the mapped properties (and odata=nometadata when `T` maps no ETag).
///
/// Errors are deferred: building a query or a filter never fails on the spot;
/// the first fetch reports the first problem as `invalid_argument` (naming the
/// field and the rule), before anything is sent.
#pragma once

#include <aztables/config.hpp>
#include <aztables/entity.hpp>
#include <aztables/error.hpp>
#include <aztables/detail/schema.hpp>
#include <aztables/mapping.hpp>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

AZTABLES_NAMESPACE_BEGIN

namespace detail {
class client_core;
class query_access;

/// A literal for the filter builder: the same Edm type a mapped member of
/// type V is stored as (enums by their enum_traits), `aztables::value` as is,
/// anything string-like as a String.
template <class V>
result<value> literal_value(const V& v) {
  if constexpr (std::is_same_v<V, value>) {
    return v;
  } else if constexpr (std::is_enum_v<V>) {
    constexpr field_kind k = kind_of<V>();
    using u = std::underlying_type_t<V>;
    if constexpr (k == field_kind::enum_string) {
      for (const auto& n : enum_traits<V>::names)
        if (n.first == v) return value(n.second);
      return error::invalid_argument("filter literal", "enum value " + std::to_string(static_cast<std::int64_t>(static_cast<u>(v))) +
                                                           " has no name in aztables::enum_traits<E>::names");
    } else if constexpr (k == field_kind::enum_int32) {
      return value(static_cast<std::int32_t>(static_cast<u>(v)));
    } else {
      return value(static_cast<std::int64_t>(static_cast<u>(v)));
    }
  } else if constexpr (std::is_convertible_v<const V&, std::string_view>) {
    return value(std::string_view(v));
  } else {
    return value(v);
  }
}
}  // namespace detail

/// Property names to return (`$select`); empty means all properties.
using select_list = std::vector<std::string>;

/// A `$filter` expression, built from comparisons joined with `&&`, `||` and
/// `!` (written `and`, `or`, `not`, with parentheses wherever an operand is
/// itself a combination of the other operator, or raw text).
/// Values become typed OData literals (strings with quotes doubled, `123L`
/// for Int64, `datetime'…'` with 7 digits, `guid'…'`, `X'…'`), so no value can
/// change the shape of the filter. A default-constructed filter is "no
/// condition" and disappears when combined.
///
/// \code
/// using aztables::filter;
/// auto f = filter::ge("Age", 30) && (filter::eq("City", "Oslo") || !filter::eq("Vip", true));
/// \endcode
///
/// Literal types follow the mapping rules: `int`/`std::int32_t` is an Int32,
/// `std::int64_t` an Int64 (a property stored as Int64 never equals an Int32
/// literal, so compare with the member's own type), `double` a Double
/// (NaN/infinity are refused), `aztables::datetime`, `guid`, `binary`, `bool`,
/// strings, and mapped enums.
class filter {
 public:
  /// No condition.
  filter() = default;

  /// `property eq value` (and ne, gt, ge, lt, le below). `property` must be a
  /// valid property name or PartitionKey / RowKey / Timestamp.
  template <class V>
  static filter eq(std::string_view property, const V& v) {
    return compare(property, "eq", detail::literal_value(v));
  }
  /// `property ne value`
  template <class V>
  static filter ne(std::string_view property, const V& v) {
    return compare(property, "ne", detail::literal_value(v));
  }
  /// `property gt value`
  template <class V>
  static filter gt(std::string_view property, const V& v) {
    return compare(property, "gt", detail::literal_value(v));
  }
  /// `property ge value`
  template <class V>
  static filter ge(std::string_view property, const V& v) {
    return compare(property, "ge", detail::literal_value(v));
  }
  /// `property lt value`
  template <class V>
  static filter lt(std::string_view property, const V& v) {
    return compare(property, "lt", detail::literal_value(v));
  }
  /// `property le value`
  template <class V>
  static filter le(std::string_view property, const V& v) {
    return compare(property, "le", detail::literal_value(v));
  }

  /// EXPERTS ONLY: `text` is used verbatim as an OData filter expression
  /// (parenthesised when combined). Nothing is checked or escaped: never put
  /// user input in it; build comparisons with eq/ne/... instead.
  static filter raw_unchecked(std::string text) {
    filter f;
    f.text_ = std::move(text);
    f.shape_ = shape::raw;
    return f;
  }

  /// Both conditions: `(a) and (b)`.
  friend filter operator&&(filter a, filter b) { return join(std::move(a), std::move(b), " and "); }
  /// Either condition: `(a) or (b)`.
  friend filter operator||(filter a, filter b) { return join(std::move(a), std::move(b), " or "); }
  /// The negation: `not (a)`. Negating "no condition" is an error.
  friend filter operator!(filter a) {
    if (a.error_) return a;
    if (a.text_.empty()) return failed(error::invalid_argument("filter", "cannot negate an empty filter"));
    a.text_ = "not (" + a.text_ + ")";
    a.shape_ = shape::atom;
    return a;
  }

  /// True for "no condition".
  bool empty() const noexcept { return text_.empty() && !error_; }
  /// The OData text, or the first error made while building it.
  result<std::string> str() const {
    if (error_) return *error_;
    return text_;
  }

 private:
  static AZTABLES_DECL filter compare(std::string_view property, const char* op, result<value> v);
  static filter failed(error e) {
    filter f;
    f.error_ = std::move(e);
    return f;
  }
  // What sits at the top of text_: a comparison or `not (...)` needs no
  // parentheses as an operand; `and`/`or` chains need them unless joined by
  // the same operator; raw text always gets them.
  enum class shape : unsigned char { atom, and_chain, or_chain, raw };
  static filter join(filter a, filter b, const char* op) {
    if (a.error_) return a;
    if (b.error_) return b;
    if (a.text_.empty()) return b;
    if (b.text_.empty()) return a;
    const shape chain = op[1] == 'a' ? shape::and_chain : shape::or_chain;
    auto operand = [chain](const filter& f) {
      return f.shape_ == shape::atom || f.shape_ == chain ? f.text_ : "(" + f.text_ + ")";
    };
    filter r;
    r.text_ = operand(a) + op + operand(b);
    r.shape_ = chain;
    return r;
  }
  std::string text_;
  std::optional<error> error_;
  shape shape_ = shape::atom;
};

/// One end of a key range.
struct key_bound {
  std::string key;        ///< the bound
  bool inclusive = true;  ///< whether `key` itself is in the range
};

/// A range of PartitionKey or RowKey values, in the service's string order
/// (ordinal, by UTF-16 code unit). Default: every key.
class key_range {
 public:
  /// Every key.
  key_range() = default;
  /// A range with optional ends (absent: unbounded on that side).
  key_range(std::optional<key_bound> lower, std::optional<key_bound> upper)
      : lower_(std::move(lower)), upper_(std::move(upper)) {}

  /// `from <= key <= to`
  static key_range closed(std::string from, std::string to) {
    return {key_bound{std::move(from), true}, key_bound{std::move(to), true}};
  }
  /// `from <= key < to`
  static key_range half_open(std::string from, std::string to) {
    return {key_bound{std::move(from), true}, key_bound{std::move(to), false}};
  }
  /// `key >= from`
  static key_range at_least(std::string from) { return {key_bound{std::move(from), true}, std::nullopt}; }
  /// `key > from`
  static key_range greater_than(std::string from) { return {key_bound{std::move(from), false}, std::nullopt}; }
  /// `key <= to`
  static key_range at_most(std::string to) { return {std::nullopt, key_bound{std::move(to), true}}; }
  /// `key < to`
  static key_range less_than(std::string to) { return {std::nullopt, key_bound{std::move(to), false}}; }
  /// Every key that starts with `prefix`: `prefix <= key < successor`, where
  /// the successor is the least string above every key with the prefix
  /// (trailing U+FFFF dropped, surrogate edges handled; no upper end when
  /// none exists). `prefix` must be valid UTF-8.
  static AZTABLES_DECL key_range prefix(std::string_view prefix);

  /// The lower end (none: unbounded).
  const std::optional<key_bound>& lower() const noexcept { return lower_; }
  /// The upper end (none: unbounded).
  const std::optional<key_bound>& upper() const noexcept { return upper_; }
  /// True when neither end is bounded.
  bool unbounded() const noexcept { return !lower_ && !upper_ && !error_; }
  /// The error made while building the range (invalid UTF-8 prefix), if any.
  const std::optional<error>& build_error() const noexcept { return error_; }

 private:
  std::optional<key_bound> lower_, upper_;
  std::optional<error> error_;
};

/// What a query reads: one of the four query kinds of the service, best
/// first, plus an extra filter, a projection, a page size, an overall limit
/// and a resume token. Values; the setters chain:
/// \code
/// auto q = aztables::query::row_range("race-2026", aztables::key_range::prefix("AGE:05"))
///              .where(aztables::filter::eq("City", "Oslo"))
///              .page_size(100);
/// \endcode
class query {
 public:
  /// The kinds, for inspection.
  enum class kind { point, row_range, partition_range, table_scan };

  /// Point query: PartitionKey and RowKey exact (0 or 1 entity). For a plain
  /// read `table_client::get` is simpler; this one composes with a filter.
  static query point(entity_key key) {
    query q(kind::point);
    q.partition_key_ = std::move(key.partition_key);
    q.row_key_ = std::move(key.row_key);
    return q;
  }
  /// Row-range query: one partition, RowKeys in `rows` (default: the whole
  /// partition).
  static query row_range(std::string partition_key, key_range rows = {}) {
    query q(kind::row_range);
    q.partition_key_ = std::move(partition_key);
    q.rows_ = std::move(rows);
    return q;
  }
  /// Partition-range query: PartitionKeys in `partitions` (at least one end
  /// must be bounded: use table_scan() to read everything), optionally only
  /// RowKeys in `rows`.
  static query partition_range(key_range partitions, key_range rows = {}) {
    query q(kind::partition_range);
    q.partitions_ = std::move(partitions);
    q.rows_ = std::move(rows);
    return q;
  }
  /// Full table scan: reads (and is billed for) every entity of the table.
  /// Explicit on purpose; prefer a key condition where there is one.
  static query table_scan() { return query(kind::table_scan); }

  /// Adds a condition (ANDed with the key condition and earlier where()s).
  query& where(filter f) & {
    extra_ = std::move(extra_) && std::move(f);
    return *this;
  }
  /// where() on a temporary (for chaining).
  query&& where(filter f) && { return std::move(where(std::move(f))); }
  /// Returns only these properties (dynamic queries; a typed query selects
  /// its mapped properties itself and refuses an explicit list).
  query& select(select_list names) & {
    select_ = std::move(names);
    has_select_ = true;
    return *this;
  }
  /// select() on a temporary (for chaining).
  query&& select(select_list names) && { return std::move(select(std::move(names))); }
  /// Entities per request (`$top`), 1 to 1000; default: the service's 1000.
  query& page_size(int n) & {
    page_size_ = n;
    return *this;
  }
  /// page_size() on a temporary (for chaining).
  query&& page_size(int n) && { return std::move(page_size(n)); }
  /// At most `n` entities in all (the last request asks for no more than needed).
  query& limit(std::size_t n) & {
    limit_ = n;
    return *this;
  }
  /// limit() on a temporary (for chaining).
  query&& limit(std::size_t n) && { return std::move(limit(n)); }
  /// Continues where a pager's token() said it stood. The token must come
  /// from the same table and the same filter (kind, keys, where()).
  query& resume(std::string token) & {
    resume_ = std::move(token);
    return *this;
  }
  /// resume() on a temporary (for chaining).
  query&& resume(std::string token) && { return std::move(resume(std::move(token))); }

  /// Which of the four kinds this query is.
  kind query_kind() const noexcept { return kind_; }
  /// The complete `$filter` text this query sends (key condition and
  /// where()), or the first error in it. Empty for an unfiltered table scan.
  AZTABLES_DECL result<std::string> filter_text() const;

 private:
  explicit query(kind k) : kind_(k) {}
  friend class detail::query_access;
  kind kind_;
  std::string partition_key_, row_key_;
  key_range rows_, partitions_;
  filter extra_;
  select_list select_;
  bool has_select_ = false;
  std::optional<int> page_size_;
  std::optional<std::size_t> limit_;
  std::optional<std::string> resume_;
};

namespace detail {
/// Internal access to a query's parts (for the pager).
class query_access {
 public:
  static const select_list* select(const query& q) { return q.has_select_ ? &q.select_ : nullptr; }
  static const std::optional<int>& page_size(const query& q) { return q.page_size_; }
  static const std::optional<std::size_t>& limit(const query& q) { return q.limit_; }
  static const std::optional<std::string>& resume(const query& q) { return q.resume_; }
};
}  // namespace detail

/// One page of results.
template <class T>
struct page {
  std::vector<T> items;  ///< the entities of this page, in key order (may be empty while more follow)
  /// Resume token for what follows this page; empty when nothing is left.
  std::string token;
};

namespace detail {

/// The non-template engine of a pager: request building, continuations,
/// limits, skip counts for mid-page resume tokens, and decoding.
class pager_core {
 public:
  /// `schema` null: dynamic entities (`std::vector<entity>`).
  AZTABLES_DECL pager_core(std::shared_ptr<client_core> core, std::string table, aztables::query q,
                           const entity_schema* schema);

  /// Fetches the next page into `out` (a `std::vector<T>` of the schema's T,
  /// or `std::vector<entity>`), replacing its contents and overwriting the
  /// entities it holds in place (their storage is reused). On an error
  /// nothing moves: the same page is fetched again on the next call.
  AZTABLES_DECL result<void> fetch(void* out);
  /// No more pages (nothing left, or the limit was reached).
  bool done() const noexcept { return done_; }
  /// The resume token; `consumed` items of the last fetched page were used
  /// and `remaining` were not (0 remaining: the page was used up).
  AZTABLES_DECL std::string token(std::size_t consumed, std::size_t remaining) const;

 private:
  struct position {
    std::optional<std::string> next_pk, next_rk;  ///< continuation to send (none: from the start)
    std::size_t skip = 0;                         ///< results to drop after it
  };
  AZTABLES_DECL std::optional<error> prepare();
  AZTABLES_DECL std::string encode(const position& p) const;

  std::optional<error> prepare_error_;  ///< the first problem with the query (reported by fetch)

  std::shared_ptr<client_core> core_;
  std::string table_;
  aztables::query q_;
  const entity_schema* schema_;
  bool done_ = false;
  bool exhausted_ = false;  ///< the service said there is nothing after `next_`
  std::string base_query_;  ///< "$filter=...&$select=..." (encoded)
  std::string fingerprint_;
  std::string_view accept_;
  std::optional<std::size_t> limit_;
  std::size_t delivered_ = 0;
  position next_;        ///< where the next fetch starts
  position page_start_;  ///< where the last fetched page started (post-skip items counted from here)
  std::shared_ptr<void> parser_;  ///< the JSON parser, reused across pages
  std::string body_;              ///< the response buffer, reused
};

/// A typed point read (GET of one entity) decoded straight into `obj`.
/// Returns false when the entity does not exist.
AZTABLES_DECL result<bool> get_typed(client_core& core, const std::string& table, const entity_key& key,
                                     const entity_schema& schema, void* obj);

}  // namespace detail

/// The results of a query, fetched lazily page by page, following
/// continuations until the service sends none (pages may be empty and still
/// continue). Three ways to consume it:
/// - range-for over every entity: `for (T& x : pager)`; an error while
///   fetching a later page throws `aztables::exception` from the iterator;
/// - page by page: `while (!p.done()) { auto pg = p.next_page(); ... }`,
///   errors as `result`;
/// - resume later: `p.token()` is an opaque string; pass it to
///   `query::resume` to continue exactly where this pager stands (also in
///   the middle of a page: no entity is returned twice or skipped, as long as
///   the data does not change in between).
/// Move-only; not thread-safe.
template <class T>
class pager {
 public:
  /// Made by `table_client::query<T>`.
  pager(std::shared_ptr<detail::client_core> core, std::string table, query q)
      : core_(std::move(core), std::move(table), std::move(q), schema_ptr()) {}
  /// Moves the pager (a range-for in progress must not span the move).
  pager(pager&&) noexcept = default;
  /// Moves the pager.
  pager& operator=(pager&&) noexcept = default;
  pager(const pager&) = delete;
  pager& operator=(const pager&) = delete;

  /// True when nothing more will come (no buffered entity, no page left).
  bool done() const noexcept { return used() >= buf_.size() && core_.done(); }

  /// The next page: the rest of a page a range-for started, else a newly
  /// fetched one (possibly empty while more follow). After done(): an empty
  /// page. On an error nothing is lost: calling again retries.
  result<page<T>> next_page() {
    page<T> p;
    auto r = next_page(p);
    if (!r) return std::move(r).error();
    return p;
  }

  /// The next page, as `next_page()`, written into `into`: the entities it
  /// already holds are overwritten in place, so their strings and byte
  /// vectors keep their storage. A loop that reads page after page into one
  /// `page` object (`while (!p.done()) { p.next_page(pg); ... }`) stops
  /// allocating for the entities' members after the first page. On an error
  /// `into.items` is empty and nothing is lost: calling again retries.
  result<void> next_page(page<T>& into) {
    if (used() < buf_.size()) {
      into.items.clear();
      into.items.reserve(buf_.size() - used());
      for (std::size_t i = used(); i < buf_.size(); ++i) into.items.push_back(std::move(buf_[i]));
      buf_.clear();
      pos_ = handed_ = 0;
    } else if (core_.done()) {
      into.items.clear();
    } else {
      auto r = core_.fetch(&into.items);
      if (!r) {
        into.items.clear();
        return std::move(r).error();
      }
    }
    into.token = core_.token(0, 0);
    return {};
  }

  /// Where this pager stands, as an opaque resume token for
  /// `query::resume`; empty when nothing is left. An entity a range-for has
  /// handed out counts as read: a token taken in the loop body resumes after it.
  std::string token() const { return core_.token(used(), buf_.size() - used()); }

  /// Input iterator over the remaining entities; fetching a page that fails
  /// throws `aztables::exception`.
  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;  ///< single pass
    using value_type = T;                               ///< the entity type
    using difference_type = std::ptrdiff_t;             ///< (unused)
    using pointer = T*;                                 ///< pointer to an entity
    using reference = T&;                               ///< reference to an entity
    /// The end iterator.
    iterator() = default;
    /// The current entity (movable-from: it is not read again).
    T& operator*() const {
      p_->handed_ = p_->pos_ + 1;
      return p_->buf_[p_->pos_];
    }
    /// The current entity.
    T* operator->() const { return &**this; }
    /// Advances; fetches the next page when this one is used up (throws
    /// `aztables::exception` if that fails).
    iterator& operator++() {
      ++p_->pos_;
      if (!p_->fill()) p_ = nullptr;
      return *this;
    }
    /// Advances (see the prefix form).
    void operator++(int) { ++*this; }
    /// Equal when both are the end, or both are this pager's position.
    friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.p_ == b.p_; }
    /// Not equal.
    friend bool operator!=(const iterator& a, const iterator& b) noexcept { return a.p_ != b.p_; }

   private:
    friend class pager;
    explicit iterator(pager* p) : p_(p) {}
    pager* p_ = nullptr;
  };
  /// Starts (or continues) the iteration; may fetch, and throw on an error.
  iterator begin() { return fill() ? iterator(this) : iterator(); }
  /// The end of the iteration.
  iterator end() { return iterator(); }

 private:
  static const detail::entity_schema* schema_ptr() {
    if constexpr (std::is_same_v<T, entity>)
      return nullptr;
    else
      return &detail::schema_of<T>();
  }
  std::size_t used() const noexcept { return pos_ > handed_ ? pos_ : handed_; }
  /// Makes an unconsumed entity available if there is one; throws on errors.
  bool fill() {
    pos_ = used();
    while (pos_ >= buf_.size()) {
      if (core_.done()) return false;
      pos_ = handed_ = 0;
      auto r = core_.fetch(&buf_);  // overwrites the used entities in place (their storage is reused)
      if (!r) {
        buf_.clear();
        throw exception(std::move(r).error());
      }
    }
    return true;
  }

  detail::pager_core core_;
  std::vector<T> buf_;
  std::size_t pos_ = 0;     ///< the iterator's position in buf_
  std::size_t handed_ = 0;  ///< entities of buf_ handed out by the iterator
};

AZTABLES_NAMESPACE_END

#if defined(AZTABLES_HEADER_ONLY)
#include <aztables/impl/query.ipp>
// The pager uses validate_table_name, defined with table_client: make it
// available to a user who includes only this header.
#include <aztables/table_client.hpp>
#endif
