"""The design model: pure Python, no Qt, no networkx."""

from designer.model.design import Design
from designer.model.entities import (
    BOARD_MEDIA,
    COPPER_MEDIA,
    DEVICE_KINDS,
    GROUP_KINDS,
    MEDIA,
    PORT_KINDS,
    Device,
    Group,
    Link,
    PortGroup,
    PortSpec,
    check_id,
    parse_port_ref,
)
from designer.model.errors import (
    DesignError,
    DuplicateIdError,
    InvalidValueError,
    ModelError,
    PortInUseError,
    SelfLinkError,
    UnknownIdError,
)
from designer.model.events import Signal

__all__ = [
    "BOARD_MEDIA",
    "COPPER_MEDIA",
    "DEVICE_KINDS",
    "GROUP_KINDS",
    "MEDIA",
    "PORT_KINDS",
    "Design",
    "DesignError",
    "Device",
    "DuplicateIdError",
    "Group",
    "InvalidValueError",
    "Link",
    "ModelError",
    "PortGroup",
    "PortInUseError",
    "PortSpec",
    "SelfLinkError",
    "Signal",
    "UnknownIdError",
    "check_id",
    "parse_port_ref",
]
