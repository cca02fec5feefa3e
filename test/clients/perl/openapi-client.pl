#!/usr/bin/perl
# A Perl client of the gateway, generated at run time by OpenAPI::Client (Debian: libopenapi-client-perl)
# from the OpenAPI document the server is described by. It makes the calls of a plan written by
# test/clients/clients.test.ts, validates each request (OpenAPI::Client does) and each response against the
# document (JSON::Validator), and prints one JSON summary on stdout.
#
#   perl test/clients/perl/openapi-client.pl <openapi.json> <plan.json>
#
# Strict validation: a status the operation does not document, a content type its response does not
# document, a missing body, or a field an object schema does not name is an error. No type coercion.
use strict;
use warnings;
use Mojo::File qw(path);
use Mojo::JSON qw(decode_json encode_json false true);
use OpenAPI::Client;

my ($document_file, $plan_file) = @ARGV;
die "usage: $0 <openapi.json> <plan.json>\n" unless defined $plan_file;
my $plan = decode_json(path($plan_file)->slurp);

# Builds the client class from the document (which it validates against the OpenAPI 3.0 schema); its
# base URL is the document's first server. No coercion: "1" is not a number, "true" not a boolean.
my $client    = OpenAPI::Client->new(path($document_file)->to_abs->to_string, coerce => '');
my $validator = $client->validator;
$validator->coerce({});

# Close every object schema that does not say otherwise: an undocumented field is an error.
my $closed = 0;
sub close_objects {
  my ($node) = @_;
  if (ref $node eq 'HASH') {
    if (($node->{type} // '') eq 'object' && $node->{properties} && !exists $node->{additionalProperties}) {
      $node->{additionalProperties} = false;
      $closed++;
    }
    close_objects($_) for values %$node;
  }
  elsif (ref $node eq 'ARRAY') {
    close_objects($_) for @$node;
  }
}
close_objects($validator->data->{paths});

# operationId => [method, path], from the routes the client was generated with.
my %routes = map { ($_->{operation_id} => [$_->{method}, $_->{path}]) } grep { $_->{operation_id} } $validator->routes->each;

sub covered_path {
  my ($p) = @_;
  for my $entry (@{$plan->{cover}}) {
    return 1 if $entry =~ m{^(.*)\*$} ? index($p, $1) == 0 : $p eq $entry;
  }
  return 0;
}

my (@results, %called);
for my $call (@{$plan->{calls}}) {
  my $op = $call->{operationId};
  my %result = (label => $call->{label}, operationId => $op, expectStatus => $call->{expectStatus}, errors => []);
  push @results, \%result;
  my $route = $routes{$op};
  unless ($route) {
    push @{$result{errors}}, "the document has no operation $op";
    next;
  }
  $called{$op} = 1;
  my ($method, $route_path) = @$route;
  my %params = %{$call->{params}};
  $params{body} = $call->{body} if $call->{body};

  my $tx  = $client->call($op => \%params);
  my $res = $tx->res;
  # A request the document does not allow is never sent: OpenAPI::Client answers it with "Invalid input".
  if ((($tx->error // {})->{message} // '') eq 'Invalid input') {
    push @{$result{errors}}, "request refused by OpenAPI::Client: " . $res->body;
    next;
  }
  if (my $err = $tx->error) {
    unless ($err->{code}) {
      push @{$result{errors}}, "no response: $err->{message}";
      next;
    }
  }
  my $status       = $res->code + 0;
  my $content_type = $res->headers->content_type // '';
  $result{status}      = $status;
  $result{contentType} = $content_type;
  $result{url}         = $tx->req->url->to_string;
  push @{$result{errors}}, "status $status, expected $call->{expectStatus}" if $status != $call->{expectStatus};

  my $parameters = $validator->parameters_for_response([$method, $route_path, $status]);
  unless ($parameters) {
    push @{$result{errors}}, "status $status is not documented for $op";
    next;
  }
  my ($body_param) = grep { $_->{in} eq 'body' } @$parameters;
  my ($media) = split /;/, $content_type;
  $media = lc($media // '');
  $media =~ s/\s+//g;
  my $value;
  if ($body_param) {
    if (!grep { $_ eq $media } @{$body_param->{accepts}}) {
      push @{$result{errors}}, "content type '$content_type' is not documented for $op $status (documented: @{$body_param->{accepts}})";
      next;
    }
    if ($media eq 'application/json') {
      $value = eval { decode_json($res->body) };
      unless (defined $value) {
        push @{$result{errors}}, "the body is not JSON: " . substr($res->body, 0, 200);
        next;
      }
    }
    else {
      $value = $res->text;
      $result{text} = $value;
    }
  }
  elsif (length $res->body) {
    push @{$result{errors}}, "$op $status documents no body, and the response has one";
  }

  my @errors = $validator->validate_response(
    [$method, $route_path, $status],
    {
      body   => sub { return {exists => defined $value, value => $value, content_type => $media} },
      header => sub { my ($name) = @_; my $v = $res->headers->header($name); return {exists => defined $v, value => $v} },
    }
  );
  push @{$result{errors}}, map {"response: $_"} @errors;
}

# Every operation of the covered paths was called.
my @uncovered = sort grep { covered_path($routes{$_}[1]) && !$called{$_} } keys %routes;

my $failed = grep { @{$_->{errors}} } @results;
print encode_json({
  client      => 'perl OpenAPI::Client ' . $OpenAPI::Client::VERSION,
  closed      => $closed,
  operations  => [sort grep { covered_path($routes{$_}[1]) } keys %routes],
  results     => \@results,
  uncovered   => \@uncovered,
  passed      => scalar(@results) - $failed,
  failed      => $failed + scalar(@uncovered),
}), "\n";
exit($failed || @uncovered ? 1 : 0);
