// SPDX-License-Identifier: Apache-2.0
#include "core/gateway/gateway_request.h"

#include <gtest/gtest.h>

#include <variant>

using namespace nr::core;

namespace {

RequestHead head(std::vector<std::pair<std::string_view, std::string_view>> fields, std::string_view method = "POST",
                 unsigned version = 11)
{
    RequestHead h;
    h.method = method;
    h.target = "/api.openai.com/v1/responses";
    h.version = version;
    h.fields = std::move(fields);
    return h;
}

RequestFraming accepted(const RequestHead& h)
{
    const auto check = check_request_head(h);
    EXPECT_TRUE(std::holds_alternative<RequestFraming>(check))
        << (std::holds_alternative<RequestRefusal>(check) ? std::get<RequestRefusal>(check).message : "");
    return std::holds_alternative<RequestFraming>(check) ? std::get<RequestFraming>(check) : RequestFraming{};
}

RequestRefusal refused(const RequestHead& h)
{
    const auto check = check_request_head(h);
    EXPECT_TRUE(std::holds_alternative<RequestRefusal>(check));
    return std::holds_alternative<RequestRefusal>(check) ? std::get<RequestRefusal>(check) : RequestRefusal{};
}

ProviderRoute openai()
{
    ProviderRoute p;
    p.host = "api.openai.com";
    p.credential = "openai";
    return p;
}

} // namespace

TEST(ARequestWithOneContentLength, HasALengthFramedBody)
{
    const auto framing = accepted(head({{"Content-Length", "12"}}));
    EXPECT_EQ(framing.body, BodyFraming::Length);
    EXPECT_EQ(framing.content_length, 12U);
    EXPECT_TRUE(framing.keep_alive);
}

TEST(ARequestWithoutFramingFields, HasNoBody)
{
    EXPECT_EQ(accepted(head({}, "GET")).body, BodyFraming::None);
    EXPECT_EQ(accepted(head({{"Content-Length", "0"}})).body, BodyFraming::None);
}

TEST(ARequestWithASingleChunkedEncoding, IsChunkedInAnyCase)
{
    EXPECT_EQ(accepted(head({{"Transfer-Encoding", "chunked"}})).body, BodyFraming::Chunked);
    EXPECT_EQ(accepted(head({{"transfer-encoding", " Chunked "}})).body, BodyFraming::Chunked);
}

TEST(ARequestWithBothTransferEncodingAndContentLength, IsRefusedAsBadFraming)
{
    const auto refusal = refused(head({{"Transfer-Encoding", "chunked"}, {"Content-Length", "5"}}));
    EXPECT_EQ(refusal.status, 400U);
    EXPECT_EQ(refusal.reason, "bad-framing");
    EXPECT_EQ(refused(head({{"Content-Length", "5"}, {"Transfer-Encoding", "chunked, identity"}})).reason,
              "bad-framing");
}

TEST(ARequestWithATransferEncodingOtherThanChunked, IsRefusedAsBadFraming)
{
    for (const auto* value : {"gzip", "chunked, identity", "identity", "gzip, chunked", "", "chunked;q=1"}) {
        EXPECT_EQ(refused(head({{"Transfer-Encoding", value}})).reason, "bad-framing") << value;
    }
    EXPECT_EQ(refused(head({{"Transfer-Encoding", "chunked"}, {"Transfer-Encoding", "chunked"}})).reason,
              "bad-framing");
}

TEST(ARequestWithTwoContentLengths, IsRefusedEvenWhenTheyAgree)
{
    EXPECT_EQ(refused(head({{"Content-Length", "5"}, {"Content-Length", "5"}})).reason, "bad-framing");
}

TEST(AContentLengthThatIsNotADecimalNumber, IsRefused)
{
    for (const auto* value : {"+5", "5 5", "0x10", "", "-1", "99999999999999999999999"}) {
        EXPECT_EQ(refused(head({{"Content-Length", value}})).reason, "bad-framing") << value;
    }
}

TEST(AChunkedRequestInHttp10, IsRefused)
{
    EXPECT_EQ(refused(head({{"Transfer-Encoding", "chunked"}}, "POST", 10)).reason, "bad-framing");
}

TEST(AnExpectOtherThan100Continue, IsRefusedWith417)
{
    const auto refusal = refused(head({{"Expect", "200-ok"}}));
    EXPECT_EQ(refusal.status, 417U);
    EXPECT_EQ(refusal.reason, "expect");
    EXPECT_TRUE(accepted(head({{"Expect", "100-Continue"}, {"Content-Length", "2"}})).expect_continue);
}

TEST(AFieldWithAControlCharacter, IsRefusedAsMalformed)
{
    EXPECT_EQ(refused(head({{"X-A", std::string_view("a\r\nb", 4)}})).reason, "malformed");
    EXPECT_EQ(refused(head({{"X-A", std::string_view("a\0b", 3)}})).reason, "malformed");
    EXPECT_EQ(refused(head({{"X A", "b"}})).reason, "malformed");
}

TEST(ARequestLineWithAControlCharacter, IsRefusedAsMalformed)
{
    auto h = head({}, "GE\rT");
    EXPECT_EQ(refused(h).reason, "malformed");
    h = head({}, "GET");
    h.target = "/a\r\nX-Injected: 1";
    EXPECT_EQ(refused(h).reason, "malformed");
}

TEST(AConnectionClose, EndsTheConnectionAfterTheAnswer)
{
    EXPECT_FALSE(accepted(head({{"Connection", "keep-alive, close"}})).keep_alive);
    EXPECT_FALSE(accepted(head({}, "GET", 10)).keep_alive);
    EXPECT_TRUE(accepted(head({{"Connection", "Keep-Alive"}}, "GET", 10)).keep_alive);
}

TEST(AHeaderWithAContinuedLine, HasObsFold)
{
    EXPECT_TRUE(has_obs_fold("POST / HTTP/1.1\r\nX-A: a\r\n b\r\n\r\n"));
    EXPECT_TRUE(has_obs_fold("POST / HTTP/1.1\r\nX-A: a\r\n\tb\r\n\r\n"));
    EXPECT_FALSE(has_obs_fold("POST / HTTP/1.1\r\nX-A: a b\r\n\r\n"));
}

TEST(TheUpstreamHeader, IsWrittenAnewWithOneFramingAndTheKeyInItsPlace)
{
    const auto provider = openai();
    const RouteForward forward{&provider, "api.openai.com", "/v1/responses"};
    const auto h = head({{"Host", "127.0.0.1:8080"},
                         {"Authorization", "Bearer placeholder"},
                         {"Content-Type", "application/json"},
                         {"Content-Length", "2"},
                         {"Connection", "keep-alive, X-Secret-Hop"},
                         {"X-Secret-Hop", "1"},
                         {"Expect", "100-continue"},
                         {"Max-Forwards", "3"},
                         {"Proxy-Authorization", "Basic x"},
                         {"Upgrade", "h2c"},
                         {"OpenAI-Beta", "responses=v1"}});
    const auto out = upstream_request_head(h, forward, accepted(h));
    EXPECT_EQ(out.before_key, "POST /v1/responses HTTP/1.1\r\n"
                              "Host: api.openai.com\r\n"
                              "Content-Type: application/json\r\n"
                              "OpenAI-Beta: responses=v1\r\n"
                              "Authorization: Bearer ");
    EXPECT_EQ(out.after_key, "\r\nContent-Length: 2\r\n\r\n");
}

TEST(TheUpstreamHeaderOfAChunkedRequest, SaysChunkedOnly)
{
    const auto provider = openai();
    const RouteForward forward{&provider, "api.openai.com", "/v1/x"};
    const auto h = head({{"Transfer-Encoding", "chunked"}, {"TE", "trailers"}, {"Trailer", "X-A"}});
    const auto out = upstream_request_head(h, forward, accepted(h));
    EXPECT_EQ(out.after_key, "\r\nTransfer-Encoding: chunked\r\n\r\n");
    EXPECT_EQ(out.before_key.find("TE:"), std::string::npos) << out.before_key;
    EXPECT_EQ(out.before_key.find("Trailer"), std::string::npos) << out.before_key;
}

TEST(TheUpstreamHeaderOfABodilessGet, HasNoFramingField)
{
    const auto provider = openai();
    const RouteForward forward{&provider, "api.openai.com", "/v1/models"};
    const auto h = head({}, "GET");
    EXPECT_EQ(upstream_request_head(h, forward, accepted(h)).after_key, "\r\n\r\n");
}

TEST(TheUpstreamHeaderForAProviderWithoutAScheme, PutsTheKeyAloneInItsHeader)
{
    auto provider = openai();
    provider.header = "x-api-key";
    provider.scheme = "";
    const RouteForward forward{&provider, "api.anthropic.com", "/v1/messages"};
    const auto h = head({{"X-Api-Key", "placeholder"}}, "GET");
    const auto out = upstream_request_head(h, forward, accepted(h));
    EXPECT_TRUE(out.before_key.ends_with("\r\nx-api-key: ")) << out.before_key;
    EXPECT_EQ(out.before_key.find("placeholder"), std::string::npos) << out.before_key;
}

TEST(AChunkHeader, IsTheSizeInHex)
{
    EXPECT_EQ(chunk_header(16384), "4000\r\n");
    EXPECT_EQ(chunk_header(1), "1\r\n");
}

namespace {

RequestFraming length_framed(std::uint64_t length)
{
    return RequestFraming{.body = BodyFraming::Length, .content_length = length};
}

} // namespace

TEST(TheFirstRecordUpstream, CarriesTheHeadAndABodyThatCameWithIt)
{
    const auto record = first_upstream_record(length_framed(57), 300, 57);
    EXPECT_TRUE(record.whole_head);
    EXPECT_EQ(record.body_bytes, 57U);
}

TEST(TheFirstRecordUpstream, CarriesOnlyWhatTheGatewayHoldsOfALongerBody)
{
    EXPECT_EQ(first_upstream_record(length_framed(100000), 300, 4000).body_bytes, 4000U);
}

TEST(TheFirstRecordUpstream, NeverTakesBytesBeyondTheBodyItself)
{
    // What follows the body is the client's next request.
    EXPECT_EQ(first_upstream_record(length_framed(10), 300, 80).body_bytes, 10U);
}

TEST(TheFirstRecordUpstream, StopsAtOneRecordsWorth)
{
    const auto record = first_upstream_record(length_framed(100000), 1000, 50000);
    EXPECT_TRUE(record.whole_head);
    EXPECT_EQ(record.body_bytes, kTlsRecordBytes - 1000);
    EXPECT_EQ(first_upstream_record(length_framed(10), kTlsRecordBytes, 10).body_bytes, 0U);
}

TEST(TheFirstRecordUpstream, LeavesAHeadLargerThanARecordInPieces)
{
    const auto record = first_upstream_record(length_framed(10), kTlsRecordBytes + 1, 10);
    EXPECT_FALSE(record.whole_head);
    EXPECT_EQ(record.body_bytes, 0U);
}

TEST(TheFirstRecordUpstream, LeavesABodyAwaitingContinueAndAChunkedOneToFollow)
{
    auto awaiting = length_framed(10);
    awaiting.expect_continue = true;
    EXPECT_EQ(first_upstream_record(awaiting, 300, 10).body_bytes, 0U);
    EXPECT_EQ(first_upstream_record(RequestFraming{.body = BodyFraming::Chunked}, 300, 10).body_bytes, 0U);
    EXPECT_TRUE(first_upstream_record(RequestFraming{}, 300, 0).whole_head);
}
